"""Scaled dot-product attention composed of teml.libop calls; the function
returns what its last libop call returns (the output is named `out`).

Follows FreeTensor's test/60.libop/test_softmax.py (`test_out_of_place`:
`return libop.softmax(x, axis=-1)`) and test/60.libop/test_matmul.py (the
out-of-place `libop.matmul`), composed into the attention layer that
FreeTensor's Longformer experiment computes one window at a time."""
from __future__ import annotations  # size names in annotations need not exist in Python

import numpy as np

import teml
from teml import libop


@teml.transform
def attention(q: teml.Var[(n, d), "float32"],
              k: teml.Var[(m, d), "float32"],
              v: teml.Var[(m, d), "float32"]):
    scores = libop.matmul(q, libop.transpose(k))
    probs = libop.softmax(scores / teml.sqrt(float(d)), axis=-1)
    return libop.matmul(probs, v)


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    q = rng.standard_normal((4, 8), dtype=np.float32)
    k = rng.standard_normal((6, 8), dtype=np.float32)
    v = rng.standard_normal((6, 8), dtype=np.float32)
    out = attention(q, k, v)
    print("attention: out", out.shape, "sum", float(out.sum()))
