"""Everyday operations written as a new user of teml writes them: plain loops
in the free-form language (docs/freeform.md), no schedule, so each one runs
under teml's automatic schedule (the default of `@teml.transform`).

Every size is a name bound by the arguments' shapes, so the same functions
serve the full run and `run.py --quick`. No module-level integers here: teml
would take them as compile-time sizes (docs/python.md)."""
from __future__ import annotations

import teml


@teml.transform
def softmax(x: teml.Var[(N, M), "float32"], y: teml.Var[(N, M), "float32", "output"]):
    for i in range(N):
        top = teml.full((), float("-inf"), "float32")
        for j in range(M):
            top[()] = max(top[()], x[i, j])
        total = teml.zeros((), "float32")
        for j in range(M):
            y[i, j] = teml.exp(x[i, j] - top[()])
            total[()] += y[i, j]
        for j in range(M):
            y[i, j] = y[i, j] / total[()]


@teml.transform
def layer_norm(x: teml.Var[(N, M), "float32"], gamma: teml.Var[(M,), "float32"],
               beta: teml.Var[(M,), "float32"], y: teml.Var[(N, M), "float32", "output"]):
    for i in range(N):
        mean = teml.zeros((), "float32")
        for j in range(M):
            mean[()] += x[i, j]
        mean[()] = mean[()] / M
        var = teml.zeros((), "float32")
        for j in range(M):
            var[()] += (x[i, j] - mean[()]) * (x[i, j] - mean[()])
        var[()] = var[()] / M
        inv = 1.0 / teml.sqrt(var[()] + 1e-5)
        for j in range(M):
            y[i, j] = (x[i, j] - mean[()]) * inv * gamma[j] + beta[j]


@teml.transform
def gemv(A: teml.Var[(M, N), "float32"], x: teml.Var[(N,), "float32"], y: teml.Var[(M,), "float32", "output"]):
    for i in range(M):
        for j in range(N):
            y[i] += A[i, j] * x[j]


@teml.transform
def gemv_t(A: teml.Var[(M, N), "float32"], x: teml.Var[(M,), "float32"], y: teml.Var[(N,), "float32", "output"]):
    # y = A^T x, written as the formula reads: for each output j, a sum over i
    for j in range(N):
        for i in range(M):
            y[j] += A[i, j] * x[i]


@teml.transform
def matmul_f32(A: teml.Var[(M, K), "float32"], B: teml.Var[(K, N), "float32"],
               C: teml.Var[(M, N), "float32", "output"]):
    for i in range(M):
        for j in range(N):
            for k in range(K):
                C[i, j] += A[i, k] * B[k, j]


@teml.transform
def matmul_f64(A: teml.Var[(M, K), "float64"], B: teml.Var[(K, N), "float64"],
               C: teml.Var[(M, N), "float64", "output"]):
    for i in range(M):
        for j in range(N):
            for k in range(K):
                C[i, j] += A[i, k] * B[k, j]


@teml.transform
def conv1d(x: teml.Var[(CI, L), "float32"], w: teml.Var[(CO, CI, K), "float32"],
           y: teml.Var[(CO, L - K + 1), "float32", "output"]):
    # 'valid' convolution (PyTorch's conv1d without padding: a correlation)
    for o in range(CO):
        for t in range(L - K + 1):
            for c in range(CI):
                for k in range(K):
                    y[o, t] += w[o, c, k] * x[c, t + k]


@teml.transform
def conv2d(x: teml.Var[(CI, H, W), "float32"], w: teml.Var[(CO, CI, KH, KW), "float32"],
           y: teml.Var[(CO, H - KH + 1, W - KW + 1), "float32", "output"]):
    for o in range(CO):
        for r in range(H - KH + 1):
            for s in range(W - KW + 1):
                for c in range(CI):
                    for p in range(KH):
                        for q in range(KW):
                            y[o, r, s] += w[o, c, p, q] * x[c, r + p, s + q]


@teml.transform
def spmv(ptr: teml.Var[(R1,), "int32"], col: teml.Var[(NNZ,), "int32"], val: teml.Var[(NNZ,), "float64"],
         x: teml.Var[(C,), "float64"], y: teml.Var[(R1 - 1,), "float64", "output"]):
    for i in range(R1 - 1):
        for k in range(ptr[i], ptr[i + 1]):
            y[i] += val[k] * x[col[k]]


@teml.transform
def spmm(ptr: teml.Var[(R1,), "int32"], col: teml.Var[(NNZ,), "int32"], val: teml.Var[(NNZ,), "float32"],
         B: teml.Var[(C, F), "float32"], y: teml.Var[(R1 - 1, F), "float32", "output"]):
    for i in range(R1 - 1):
        for k in range(ptr[i], ptr[i + 1]):
            for f in range(F):
                y[i, f] += val[k] * B[col[k], f]


@teml.transform
def sddmm(ptr: teml.Var[(R1,), "int32"], col: teml.Var[(NNZ,), "int32"], U: teml.Var[(R1 - 1, F), "float32"],
          V: teml.Var[(C, F), "float32"], out: teml.Var[(NNZ,), "float32", "output"]):
    # (U V^T) at the nonzeros of the CSR pattern
    for i in range(R1 - 1):
        for k in range(ptr[i], ptr[i + 1]):
            for f in range(F):
                out[k] += U[i, f] * V[col[k], f]


@teml.transform
def scatter_add(x: teml.Var[(E, D), "float32"], index: teml.Var[(E,), "int64"],
                y: teml.Var[(R, D), "float32", "inout"]):
    # y[index[e]] += x[e], as torch.index_add_ (y is zeroed by the caller)
    for e in range(E):
        for d in range(D):
            y[index[e], d] += x[e, d]


@teml.transform
def embedding_bag(table: teml.Var[(V, D), "float32"], index: teml.Var[(B, L), "int64"],
                  y: teml.Var[(B, D), "float32", "output"]):
    # the sum of the rows each bag names
    for b in range(B):
        for l in range(L):
            for d in range(D):
                y[b, d] += table[index[b, l], d]


@teml.transform
def attention(Q: teml.Var[(S, D), "float32"], K: teml.Var[(S, D), "float32"], V: teml.Var[(S, D), "float32"],
              out: teml.Var[(S, D), "float32", "output"]):
    # one head: softmax(Q K^T / sqrt(D)) V
    scale = 1.0 / teml.sqrt(float(D))
    for i in range(S):
        score = teml.zeros((S,), "float32")
        for j in range(S):
            for d in range(D):
                score[j] += Q[i, d] * K[j, d]
        top = teml.full((), float("-inf"), "float32")
        for j in range(S):
            score[j] = score[j] * scale
            top[()] = max(top[()], score[j])
        total = teml.zeros((), "float32")
        for j in range(S):
            p = teml.exp(score[j] - top[()])
            total[()] += p
            for d in range(D):
                out[i, d] += p * V[j, d]
        for d in range(D):
            out[i, d] = out[i, d] / total[()]


@teml.transform
def stencil2d(x: teml.Var[(N, M), "float32"], y: teml.Var[(N - 2, M - 2), "float32", "output"]):
    # five-point Jacobi step on the interior
    for i in range(N - 2):
        for j in range(M - 2):
            y[i, j] = 0.2 * (x[i + 1, j + 1] + x[i, j + 1] + x[i + 2, j + 1] + x[i + 1, j] + x[i + 1, j + 2])


@teml.transform
def sum_rows(A: teml.Var[(N, M), "float32"], y: teml.Var[(N,), "float32", "output"]):
    # y[i] = sum over j of A[i, j] (NumPy's A.sum(axis=1))
    for i in range(N):
        for j in range(M):
            y[i] += A[i, j]


@teml.transform
def sum_cols(A: teml.Var[(N, M), "float32"], y: teml.Var[(M,), "float32", "output"]):
    # y[j] = sum over i of A[i, j] (NumPy's A.sum(axis=0))
    for i in range(N):
        for j in range(M):
            y[j] += A[i, j]
