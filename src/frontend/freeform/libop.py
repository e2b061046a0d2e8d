# teml.libop: tensor operators written in teml's free-form language and
# inlined like any user function (FreeTensor's design). Element-wise
# operators broadcast as NumPy does; the result of an operator is a new
# tensor when it is assigned to a name, and fuses into the expression that
# uses it otherwise. Inside this file the built-ins (abs, min, max, len,
# slice, float, int) keep their Python meaning; the operators of the same
# names are teml.libop.abs, teml.libop.min, ...
import teml


def _all(n):
    return (slice(None),) * n


def _axis(x, axis):
    return axis + x.ndim if axis < 0 else axis


# ---- element-wise
def add(a, b):
    return a + b


def sub(a, b):
    return a - b


def mul(a, b):
    return a * b


def div(a, b):
    return a / b


def neg(a):
    return -a


def abs(a):
    return abs(a)


def exp(a):
    return teml.exp(a)


def log(a):
    return teml.log(a)


def sqrt(a):
    return teml.sqrt(a)


def tanh(a):
    return teml.tanh(a)


def sigmoid(a):
    return teml.sigmoid(a)


def relu(a):
    return max(a, 0)


# ---- creation
def zeros(shape, dtype="float64"):
    y = teml.zeros(shape, dtype)
    return y


def ones(shape, dtype="float64"):
    y = teml.ones(shape, dtype)
    return y


def fill(y, value):
    y[()] = value


# ---- reductions over one axis
def _reduce_into(y, x, axis, op):
    #! label: reduce
    for k in range(x.shape(axis)):
        if op == "sum":
            y[()] += x[_all(axis) + (k,)]
        elif op == "max":
            y[()] = max(y, x[_all(axis) + (k,)])
        else:
            y[()] = min(y, x[_all(axis) + (k,)])


def _reduce(x, axis, keepdims, op, start):
    ax = _axis(x, axis)
    kept = x.shape[:ax] + (1,) + x.shape[ax + 1:]
    y = teml.empty(kept, x.dtype)
    y[()] = start
    _reduce_into(y[_all(ax) + (0,)], x, ax, op)
    if keepdims:
        return y
    return y[_all(ax) + (0,)]


def sum(x, axis=-1, keepdims=False):
    return _reduce(x, axis, keepdims, "sum", 0)


def max(x, axis=-1, keepdims=False):
    return _reduce(x, axis, keepdims, "max", -float("inf"))


def min(x, axis=-1, keepdims=False):
    return _reduce(x, axis, keepdims, "min", float("inf"))


def mean(x, axis=-1, keepdims=False):
    s = sum(x, axis, keepdims)
    s[()] = s / x.shape(_axis(x, axis))
    return s


def softmax(x, axis=-1):
    m = _reduce(x, axis, True, "max", -float("inf"))
    e = teml.exp(x - m)
    s = sum(e, axis, True)
    y = e / s
    return y


# ---- matrix products
def _matmul_into(c, a, b):
    # c[.., i, j] += a[.., i, k] * b[.., k, j], batch dimensions broadcast
    if c.ndim > 2:
        for n in range(c.shape(0)):
            _matmul_into(c[n], a[n] if a.ndim >= c.ndim and a.shape(0) > 1 else (a[0] if a.ndim >= c.ndim else a),
                         b[n] if b.ndim >= c.ndim and b.shape(0) > 1 else (b[0] if b.ndim >= c.ndim else b))
    else:
        for i in range(a.shape(0)):
            for k in range(a.shape(1)):
                c[i] += a[i, k] * b[k]


def _matvec_into(y, a, b):
    # y[..] += a[.., k] * b[k], a row at a time: each row's sum runs along
    # the row (contiguous), not down the columns
    if a.ndim > 1:
        for n in range(a.shape(0)):
            _matvec_into(y[n], a[n], b)
    else:
        for k in range(b.shape(0)):
            y[()] += a[k] * b[k]


def matmul(a, b):
    dtype = teml.result_type(a, b)
    if a.ndim == 1 and b.ndim == 1:
        y = teml.zeros((), dtype)
        for k in range(a.shape(0)):
            y[()] += a[k] * b[k]
        return y
    if a.ndim == 1:
        y = teml.zeros(b.shape[:-2] + b.shape[-1:], dtype)
        for k in range(a.shape(0)):
            y[()] += a[k] * b[_all(b.ndim - 2) + (k,)]
        return y
    if b.ndim == 1:
        y = teml.zeros(a.shape[:-1], dtype)
        _matvec_into(y, a, b)
        return y
    batch = _batch_shape(a.shape[:-2], b.shape[:-2])
    y = teml.zeros(batch + (a.shape(-2), b.shape(-1)), dtype)
    _matmul_into(y, a, b)
    return y


def _batch_shape(s, t):
    if len(s) < len(t):
        return _batch_shape((1,) * (len(t) - len(s)) + s, t)
    if len(t) < len(s):
        return _batch_shape(s, (1,) * (len(s) - len(t)) + t)
    if len(s) == 0:
        return ()
    return (max(s[0], t[0]),) + _batch_shape(s[1:], t[1:])


# ---- layout
def concat(tensors, axis=0):
    ax = _axis(tensors[0], axis)
    total = _total(tensors, ax)
    y = teml.empty(tensors[0].shape[:ax] + (total,) + tensors[0].shape[ax + 1:], tensors[0].dtype)
    _concat_into(y, tensors, ax, 0)
    return y


def _total(tensors, ax):
    if len(tensors) == 0:
        return 0
    return tensors[0].shape(ax) + _total(tensors[1:], ax)


def _concat_into(y, tensors, ax, offset):
    if len(tensors) > 0:
        n = tensors[0].shape(ax)
        y[_all(ax) + (slice(offset, offset + n),)] = tensors[0]
        _concat_into(y, tensors[1:], ax, offset + n)


def gather(x, index, axis=0):
    ax = _axis(x, axis)
    y = teml.empty(x.shape[:ax] + index.shape + x.shape[ax + 1:], x.dtype)
    _gather_into(y, x, index, ax)
    return y


def _gather_into(y, x, index, ax):
    if index.ndim == 0:
        y[()] = x[_all(ax) + (index,)]
    else:
        for i in range(index.shape(0)):
            _gather_into(y[_all(ax) + (i,)], x, index[i], ax)


def transpose(x, axes=None):
    perm = _reversed(x.ndim) if axes is None else axes
    y = teml.empty(_pick(x.shape, perm), x.dtype)
    _transpose_into(y, x, perm, ())
    return y


def _reversed(n):
    if n == 0:
        return ()
    return (n - 1,) + _reversed(n - 1)


def _pick(t, order):
    if len(order) == 0:
        return ()
    return (t[order[0]],) + _pick(t, order[1:])


def _position(t, v):
    if t[0] == v:
        return 0
    return 1 + _position(t[1:], v)


def _inverse(perm, d=0):
    if d == len(perm):
        return ()
    return (_position(perm, d),) + _inverse(perm, d + 1)


def _transpose_into(y, x, perm, idx):
    if len(idx) == y.ndim:
        y[idx] = x[_pick(idx, _inverse(perm))]
    else:
        for i in range(y.shape(len(idx))):
            _transpose_into(y, x, perm, idx + (i,))


def _size(shape):
    if len(shape) == 0:
        return 1
    return shape[0] * _size(shape[1:])


def _unflatten(flat, shape):
    # the C-order index of element `flat` of a tensor of this shape
    if len(shape) == 0:
        return ()
    inner = _size(shape[1:])
    return (flat // inner % shape[0],) + _unflatten(flat, shape[1:])


def _flat(idx, shape):
    if len(idx) == 0:
        return 0
    return idx[0] * _size(shape[1:]) + _flat(idx[1:], shape[1:])


def _reshape_into(y, x, idx):
    if len(idx) == y.ndim:
        y[idx] = x[_unflatten(_flat(idx, y.shape), x.shape)]
    else:
        for i in range(y.shape(len(idx))):
            _reshape_into(y, x, idx + (i,))


def reshape(x, shape):
    assert _size(shape) == _size(x.shape), "reshape: the new shape has another number of elements"
    y = teml.empty(shape, x.dtype)
    _reshape_into(y, x, ())
    return y


def flatten(x):
    return reshape(x, (_size(x.shape),))
