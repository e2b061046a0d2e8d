"""The same operations as a user of NumPy, SciPy or PyTorch writes them: the
library's own call, each at its fastest (outputs preallocated and passed with
`out=` where the library takes one; PyTorch tensors share the NumPy inputs'
memory). run.py times every candidate and keeps the fastest.

make(op, inputs) returns {label: callable()}; each callable returns the
result as something np.asarray accepts. Threads: the process's
OMP_NUM_THREADS / OPENBLAS_NUM_THREADS (set by run.py before NumPy loads)
and torch.set_num_threads (run.py)."""
import numpy as np
import scipy.sparse
import scipy.special
import torch
import torch.nn.functional as F
import warnings

warnings.filterwarnings("ignore", message="Sparse CSR tensor support is in beta")


def _t(a):
    return torch.from_numpy(a)


def softmax(x):
    tx, ty, y = _t(x), torch.empty(x.shape), np.empty_like(x)

    def numpy():
        np.subtract(x, x.max(axis=1, keepdims=True), out=y)
        np.exp(y, out=y)
        return np.divide(y, y.sum(axis=1, keepdims=True), out=y)

    return {"torch.softmax": lambda: torch.softmax(tx, -1, out=ty),
            "scipy.special.softmax": lambda: scipy.special.softmax(x, axis=1),
            "numpy": numpy}


def layer_norm(x, gamma, beta):
    tx, tg, tb = _t(x), _t(gamma), _t(beta)
    shape = (x.shape[1],)
    return {"F.layer_norm": lambda: F.layer_norm(tx, shape, tg, tb, 1e-5)}


def gemv(A, x):
    y, tA, tx, ty = np.empty(A.shape[0], A.dtype), _t(A), _t(x), torch.empty(A.shape[0])
    return {"np.dot(out=)": lambda: np.dot(A, x, out=y), "torch.mv(out=)": lambda: torch.mv(tA, tx, out=ty)}


def gemv_t(A, x):
    y, tA, tx, ty = np.empty(A.shape[1], A.dtype), _t(A), _t(x), torch.empty(A.shape[1])
    return {"np.dot(A.T, out=)": lambda: np.dot(A.T, x, out=y), "torch.mv(A.t(), out=)": lambda: torch.mv(tA.t(), tx, out=ty)}


def matmul(A, B):
    C = np.empty((A.shape[0], B.shape[1]), A.dtype)
    tA, tB, tC = _t(A), _t(B), _t(np.empty_like(C))
    return {"np.matmul(out=)": lambda: np.matmul(A, B, out=C), "torch.mm(out=)": lambda: torch.mm(tA, tB, out=tC)}


def conv1d(x, w):
    tx, tw = _t(x)[None], _t(w)
    K = w.shape[2]

    def numpy():  # windows as a strided view, one tensordot (BLAS)
        win = np.lib.stride_tricks.sliding_window_view(x, K, axis=1)  # (CI, L-K+1, K)
        return np.tensordot(w, win, axes=([1, 2], [0, 2]))

    return {"F.conv1d": lambda: F.conv1d(tx, tw)[0], "numpy (windows, tensordot)": numpy}


def conv2d(x, w):
    tx, tw = _t(x)[None], _t(w)
    return {"F.conv2d": lambda: F.conv2d(tx, tw)[0]}


def _csr(ptr, col, val, ncols):
    return scipy.sparse.csr_matrix((val, col, ptr), shape=(len(ptr) - 1, ncols))


def _torch_csr(ptr, col, val, ncols):
    return torch.sparse_csr_tensor(_t(ptr.astype(np.int64)), _t(col.astype(np.int64)), _t(val),
                                   size=(len(ptr) - 1, ncols))


def spmv(ptr, col, val, x):
    A, tA, tx = _csr(ptr, col, val, len(x)), _torch_csr(ptr, col, val, len(x)), _t(x)
    return {"scipy csr @ x": lambda: A @ x, "torch csr @ x": lambda: tA @ tx}


def spmm(ptr, col, val, B):
    A, tA, tB = _csr(ptr, col, val, B.shape[0]), _torch_csr(ptr, col, val, B.shape[0]), _t(B)
    return {"scipy csr @ B": lambda: A @ B, "torch csr @ B": lambda: tA @ tB}


def sddmm(ptr, col, U, V):
    rows = np.repeat(np.arange(len(ptr) - 1), np.diff(ptr))
    ones = np.ones(len(col), np.float32)
    tS, tU, tVt = _torch_csr(ptr, col, ones, V.shape[0]), _t(U), _t(V).t()
    tr, tc = _t(rows), _t(col.astype(np.int64))
    return {"torch.sparse.sampled_addmm": lambda: torch.sparse.sampled_addmm(tS, tU, tVt, beta=0.0).values(),
            "numpy einsum of gathered rows": lambda: np.einsum("ij,ij->i", U[rows], V[col]),
            "torch (U[rows] * V[cols]).sum(1)": lambda: (tU[tr] * tVt.t()[tc]).sum(1)}


def scatter_add(x, index, y):
    # y is the caller's zeroed output; each call zeroes it first, as teml's does
    out, tout, tx, ti = np.empty_like(y), torch.empty(y.shape), _t(x), _t(index)

    def numpy():
        out.fill(0)
        np.add.at(out, index, x)
        return out

    def torch_():
        tout.zero_()
        return tout.index_add_(0, ti, tx)

    return {"torch.index_add_": torch_, "np.add.at": numpy}


def embedding_bag(table, index):
    tt, ti = _t(table), _t(index)
    return {"F.embedding_bag(sum)": lambda: F.embedding_bag(ti, tt, mode="sum"),
            "numpy table[index].sum(1)": lambda: table[index].sum(axis=1)}


def attention(Q, K, V):
    tq, tk, tv = _t(Q), _t(K), _t(V)
    scale = 1.0 / np.sqrt(Q.shape[1])
    out = {"torch softmax(Q K^T) V": lambda: torch.softmax(tq @ tk.t() * scale, -1) @ tv}
    if hasattr(F, "scaled_dot_product_attention"):  # PyTorch 2.0 and later
        out["F.scaled_dot_product_attention"] = lambda: F.scaled_dot_product_attention(tq[None], tk[None], tv[None])[0]
    return out


def stencil2d(x):
    y = np.empty((x.shape[0] - 2, x.shape[1] - 2), x.dtype)
    tx, ty = _t(x), torch.empty(y.shape)

    def numpy():
        np.add(x[:-2, 1:-1], x[2:, 1:-1], out=y)
        np.add(y, x[1:-1, :-2], out=y)
        np.add(y, x[1:-1, 2:], out=y)
        np.add(y, x[1:-1, 1:-1], out=y)
        return np.multiply(y, np.float32(0.2), out=y)

    def torch_():
        torch.add(tx[:-2, 1:-1], tx[2:, 1:-1], out=ty)
        ty.add_(tx[1:-1, :-2]).add_(tx[1:-1, 2:]).add_(tx[1:-1, 1:-1]).mul_(0.2)
        return ty

    kernel = torch.tensor([[0, 1, 0], [1, 1, 1], [0, 1, 0]], dtype=torch.float32).mul_(0.2)[None, None]
    return {"numpy slices (out=)": numpy, "torch slices (out=)": torch_,
            "F.conv2d 3x3": lambda: F.conv2d(tx[None, None], kernel)[0, 0]}


def sum_rows(A):
    y, tA, ty = np.empty(A.shape[0], A.dtype), _t(A), torch.empty(A.shape[0])
    return {"np.sum(axis=1, out=)": lambda: np.sum(A, axis=1, out=y),
            "torch.sum(dim=1, out=)": lambda: torch.sum(tA, 1, out=ty)}


def sum_cols(A):
    y, tA, ty = np.empty(A.shape[1], A.dtype), _t(A), torch.empty(A.shape[1])
    return {"np.sum(axis=0, out=)": lambda: np.sum(A, axis=0, out=y),
            "torch.sum(dim=0, out=)": lambda: torch.sum(tA, 0, out=ty)}


def make(op, inputs):
    fn = {"matmul_f32": matmul, "matmul_f64": matmul}.get(op) or globals()[op]
    return fn(*inputs)
