"""teml.libop on NumPy arrays: each call compiles (once per signature) a
small free-form program that calls teml's own libop (written in the
free-form language) and runs it natively. Inside a @teml.transform
function the same names are inlined by the front end instead. (This
module's sum, max, min and abs are libop's: the built-ins are reached
through `builtins`.)"""
import builtins
import threading

import numpy as np

from . import _teml

_compiled = {}
_lock = threading.Lock()
_FLOAT_RESULT = {"div", "exp", "log", "sqrt", "tanh", "sigmoid", "mean", "softmax"}


def _axis(ndim, axis):
    return axis + ndim if axis < 0 else axis


def _result(name, arrays, kwargs):
    """Shape and dtype of libop's `name` on these arrays (NumPy's rules)."""
    a = arrays[0]
    dtype = np.result_type(*arrays) if name != "gather" else a.dtype
    if name in _FLOAT_RESULT and not np.issubdtype(dtype, np.floating):
        dtype = np.dtype("float64")
    if name in ("add", "sub", "mul", "div"):
        return np.broadcast_shapes(*(x.shape for x in arrays)), dtype
    if name in ("neg", "abs", "exp", "log", "sqrt", "tanh", "sigmoid", "relu", "softmax"):
        return a.shape, dtype
    if name in ("sum", "max", "min", "mean"):
        ax = _axis(a.ndim, kwargs.get("axis", -1))
        kept = (1,) if kwargs.get("keepdims", False) else ()
        return a.shape[:ax] + kept + a.shape[ax + 1:], dtype
    if name == "matmul":
        b = arrays[1]
        if a.ndim == 1 and b.ndim == 1:
            return (), dtype
        if a.ndim == 1:
            return b.shape[:-2] + b.shape[-1:], dtype
        if b.ndim == 1:
            return a.shape[:-1], dtype
        return np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + (a.shape[-2], b.shape[-1]), dtype
    if name == "concat":
        ax = _axis(a.ndim, kwargs.get("axis", 0))
        return a.shape[:ax] + (builtins.sum(x.shape[ax] for x in arrays),) + a.shape[ax + 1:], dtype
    if name == "gather":
        ax = _axis(a.ndim, kwargs.get("axis", 0))
        return a.shape[:ax] + arrays[1].shape + a.shape[ax + 1:], dtype
    if name == "transpose":
        axes = kwargs.get("axes") or tuple(reversed(range(a.ndim)))
        return tuple(a.shape[k] for k in axes), dtype
    if name == "reshape":
        return tuple(kwargs["shape"]), dtype
    if name == "flatten":
        return (a.size,), dtype
    raise AttributeError(f"teml.libop has no function '{name}'")


def _call(name, arrays, kwargs, list_argument=False):
    """The result of libop's `name` on these arrays: a one-line program that
    returns it (its result the output itself), compiled once per signature
    with the automatic schedule."""
    arrays = [np.ascontiguousarray(x) for x in arrays]
    shape, dtype = _result(name, arrays, kwargs)
    key = (name, tuple((x.shape, x.dtype.str) for x in arrays), tuple(sorted(kwargs.items())), list_argument)
    with _lock:
        compiled = _compiled.get(key)
        if compiled is None:
            params = [f'a{k}: teml.Var[{tuple(x.shape)!r}, "{x.dtype.name}"]' for k, x in enumerate(arrays)]
            args = [f"a{k}" for k in range(len(arrays))]
            args = [f"[{', '.join(args)}]"] if list_argument else args
            args += [f"{k}={v!r}" for k, v in kwargs.items()]
            source = (f"import teml\n\n@teml.transform\ndef libop_call({', '.join(params)}):\n"
                      f"    return teml.libop.{name}({', '.join(args)})\n")
            compiled = _compiled[key] = _teml.compile_freeform(source, "libop_call", {}, {})
    (_, result_dtype, result_shape, _), = [p for p in compiled.params() if p[3] == "output"]
    out = np.zeros(tuple(result_shape), np.dtype(result_dtype))
    compiled.run(arrays + [out], 0)
    return out.reshape(shape).astype(dtype, copy=False)


def _elementwise(name):
    def op(*arrays):
        return _call(name, [np.asarray(x) for x in arrays], {})
    op.__name__ = name
    return op


add, sub, mul, div = (_elementwise(n) for n in ("add", "sub", "mul", "div"))
neg, abs, exp, log, sqrt, tanh, sigmoid, relu = (
    _elementwise(n) for n in ("neg", "abs", "exp", "log", "sqrt", "tanh", "sigmoid", "relu"))
matmul = _elementwise("matmul")


def sum(x, axis=-1, keepdims=False):
    return _call("sum", [np.asarray(x)], {"axis": axis, "keepdims": keepdims})


def max(x, axis=-1, keepdims=False):
    return _call("max", [np.asarray(x)], {"axis": axis, "keepdims": keepdims})


def min(x, axis=-1, keepdims=False):
    return _call("min", [np.asarray(x)], {"axis": axis, "keepdims": keepdims})


def mean(x, axis=-1, keepdims=False):
    return _call("mean", [np.asarray(x)], {"axis": axis, "keepdims": keepdims})


def softmax(x, axis=-1):
    return _call("softmax", [np.asarray(x)], {"axis": axis})


def concat(tensors, axis=0):
    return _call("concat", [np.asarray(t) for t in tensors], {"axis": axis}, list_argument=True)


def gather(x, index, axis=0):
    return _call("gather", [np.asarray(x), np.asarray(index)], {"axis": axis})


def transpose(x, axes=None):
    return _call("transpose", [np.asarray(x)], {} if axes is None else {"axes": tuple(axes)})


def reshape(x, shape):
    x = np.asarray(x)
    shape = tuple(shape)
    if -1 in shape:  # NumPy's spelling: the one size that makes the element count right
        known = int(np.prod([d for d in shape if d != -1]))
        shape = tuple(x.size // known if d == -1 else d for d in shape)
    return _call("reshape", [x], {"shape": shape})


def flatten(x):
    return _call("flatten", [np.asarray(x)], {})


def zeros(shape, dtype="float64"):
    return np.zeros(shape, dtype)


def ones(shape, dtype="float64"):
    return np.ones(shape, dtype)


def fill(y, value):
    y[()] = value
