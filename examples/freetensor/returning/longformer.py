"""Longformer's sliding-window attention, returning its result `y`: each
token attends to the 2 * W + 1 tokens of a window around it, every DILATION
tokens on the first DILATION_HEADS heads. Branches decide which window
entries lie in the sequence; the window's scores are softmaxed in place.

Follows FreeTensor's experiments/longformer/ours/main.py (W = 32, dilation 4
on heads 0 and 1, 8 heads; a score outside the sequence stays 0 and still
takes part in the softmax, whose weights are then divided by sqrt(feat_len),
as there). There `Y` is an output parameter; here the function makes it and
returns it."""
from __future__ import annotations  # size names in annotations need not exist in Python

import numpy as np

import teml

W = 32
DILATION = 4
DILATION_HEADS = 2


@teml.transform
def longformer(q: teml.Var[(n_heads, seq_len, feat_len), "float32"],
               k: teml.Var[(n_heads, seq_len, feat_len), "float32"],
               v: teml.Var[(n_heads, seq_len, feat_len), "float32"]):
    y = teml.zeros((n_heads, seq_len, feat_len), "float32")
    for i in range(n_heads):
        for j in range(seq_len):
            dot = teml.zeros((2 * W + 1,), "float32")
            for t in range(2 * W + 1):
                other = j + (t - W) * DILATION if i < DILATION_HEADS else j + t - W
                if other >= 0 and other < seq_len:
                    for p in range(feat_len):
                        dot[t] += q[i, j, p] * k[i, other, p]
            top = teml.full((), -float("inf"), "float32")
            for t in range(2 * W + 1):
                top[()] = max(top[()], dot[t])
            total = teml.zeros((), "float32")
            for t in range(2 * W + 1):
                dot[t] = teml.exp(dot[t] - top[()])
                total[()] += dot[t]
            for t in range(2 * W + 1):
                dot[t] /= total[()] * teml.sqrt(float(feat_len))
            for t in range(2 * W + 1):
                other = j + (t - W) * DILATION if i < DILATION_HEADS else j + t - W
                if other >= 0 and other < seq_len:
                    for p in range(feat_len):
                        y[i, j, p] += dot[t] * v[i, other, p]
    return y


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    n_heads, seq_len, feat_len = 8, 512, 64
    q, k, v = (rng.standard_normal((n_heads, seq_len, feat_len), dtype=np.float32) for _ in range(3))
    y = longformer(q, k, v)
    print("longformer: y", y.shape, "sum", float(y.sum()))
