"""Longformer's sliding-window attention as FreeTensor's users write it:
for each head and token, the scores of the window in a local, softmaxed in
place (the maximum, then dot[t] = exp(dot[t] - top), then dot[t] /= total),
then the weighted sum of V's rows (FreeTensor's Figures 5 and 8). The
dilation is 4 on the first two heads and 1 on the others."""
from __future__ import annotations  # size names in annotations need not exist in Python

import teml

N_HEADS = 8
W = 32
DILATION = 4
DILATION_HEADS = 2


@teml.transform
def longformer(q: teml.Var[(N_HEADS, seq_len, feat_len), "float32"],
               k: teml.Var[(N_HEADS, seq_len, feat_len), "float32"],
               v: teml.Var[(N_HEADS, seq_len, feat_len), "float32"],
               y: teml.Var[(N_HEADS, seq_len, feat_len), "float32", "output"]):
    for h in range(N_HEADS):
        for j in range(seq_len):
            d = DILATION if h < DILATION_HEADS else 1
            dot = teml.empty((2 * W + 1,), "float32")
            top = teml.empty((), "float32")
            top[()] = -float("inf")
            for t in range(2 * W + 1):
                dot[t] = -float("inf")
                if 0 <= j + (t - W) * d < seq_len:
                    dot[t] = 0
                    for p in range(feat_len):
                        dot[t] += q[h, j, p] * k[h, j + (t - W) * d, p]
                top[()] = max(top[()], dot[t])
            total = teml.empty((), "float32")
            total[()] = 0
            for t in range(2 * W + 1):
                dot[t] = teml.exp(dot[t] - top[()])
                total[()] += dot[t]
            for t in range(2 * W + 1):
                dot[t] /= total[()]
            for t in range(2 * W + 1):
                if 0 <= j + (t - W) * d < seq_len:
                    y[h, j] += dot[t] * v[h, j + (t - W) * d]
