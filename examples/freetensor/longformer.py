"""Longformer's sliding-window attention (FreeTensor, Figures 1 and 5):
token j of head h attends to the 2w + 1 tokens j + d*k, k in [-w, w], that
lie in the sequence (d, the dilation, is 4 on the first two heads and 1 on
the others). The window's scores, their softmax and the weighted sum of V
stay in a few local tensors per token."""
from __future__ import annotations  # size names in annotations need not exist in Python

import teml
from teml import libop

N_HEADS = 8
W = 32
DILATION = 4
DILATION_HEADS = 2


def window(h, j, k):
    return j + k * (DILATION if h < DILATION_HEADS else 1)


@teml.transform
def longformer(q: teml.Var[(N_HEADS, seq_len, feat_len), "float32"],
               k: teml.Var[(N_HEADS, seq_len, feat_len), "float32"],
               v: teml.Var[(N_HEADS, seq_len, feat_len), "float32"],
               y: teml.Var[(N_HEADS, seq_len, feat_len), "float32", "output"]):
    #! label: Lhead
    for h in range(N_HEADS):
        #! label: Ltoken
        for j in range(seq_len):
            dot = teml.full((2 * W + 1,), -float("inf"), "float32")
            #! label: Lscore
            for t in range(-W, W + 1):
                if 0 <= window(h, j, t) < seq_len:
                    dot[t + W] = 0
                    #! label: Ldot
                    for p in range(feat_len):
                        dot[t + W] += q[h, j, p] * k[h, window(h, j, t), p]
            attn = libop.softmax(dot)
            #! label: Lsum
            for t in range(-W, W + 1):
                if 0 <= window(h, j, t) < seq_len:
                    #! label: Lacc
                    y[h, j] += attn[t + W] * v[h, window(h, j, t)]


@teml.schedule(longformer)
def schedule(s):
    s.parallelize("Ltoken")
    s.vectorize("Ldot")
    s.vectorize("Lacc")


@teml.schedule(longformer, target="cuda")
def gpu_schedule(s):
    # A block (one warp) per token. Each window score is a dot product of
    # two rows: the 32 threads take every 32nd feature (coalesced loads),
    # sum theirs in a register and fold the warp's sums into the score; the
    # weighted sum of V rows likewise, each thread its features.
    s.merge("Lhead", "Ltoken")
    s.parallelize("Lhead", "blockIdx.x")
    chunks, lanes = s.split("Ldot", 32)
    s.reorder([lanes, chunks])
    s.parallelize(lanes, "threadIdx.x")
    s.cache_reduce(lanes, "dot")
    chunks, lanes = s.split("Lacc", 32)
    s.reorder([lanes, chunks])
    s.parallelize(lanes, "threadIdx.x")
    s.auto_schedule()
