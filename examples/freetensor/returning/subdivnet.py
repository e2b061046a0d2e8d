"""SubdivNet's mesh convolution, returning a dict: the convolved features
`y` and the sums of each face's three neighbours, `neighbours`.

Follows FreeTensor's experiments/subdivnet/ours/main.py: for each face, the
sum of its three neighbours' features (`adj`, three face indices per face),
the sum of the absolute differences of neighbours taken in turn, and that of
their differences from the face; then four matrix products (13 input
features, 64 output ones in the experiment). There `y` is an output
parameter; here the function returns `{"y": y, "neighbours": ...}`, as
FreeTensor's named return values (test/50.frontend/test_transformer_basic.py,
`test_named_return_values`) are read by name."""
from __future__ import annotations  # size names in annotations need not exist in Python

import numpy as np

import teml
from teml import libop


@teml.transform
def subdivnet(adj: teml.Var[(n_faces, 3), "int32"],
              x: teml.Var[(n_faces, in_feats), "float32"],
              w0: teml.Var[(in_feats, out_feats), "float32"],
              w1: teml.Var[(in_feats, out_feats), "float32"],
              w2: teml.Var[(in_feats, out_feats), "float32"],
              w3: teml.Var[(in_feats, out_feats), "float32"]):
    total = teml.zeros((n_faces, in_feats), "float32")
    ring = teml.zeros((n_faces, in_feats), "float32")
    spread = teml.zeros((n_faces, in_feats), "float32")
    for i in range(n_faces):
        for p in range(3):
            total[i] += x[adj[i, p]]
            ring[i] += abs(x[adj[i, p]] - x[adj[i, (p + 1) % 3]])
            spread[i] += abs(x[adj[i, p]] - x[i])
    y = libop.matmul(x, w0) + libop.matmul(total, w1) + libop.matmul(ring, w2) + libop.matmul(spread, w3)
    return {"y": y, "neighbours": total}


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    n_faces, in_feats, out_feats = 1024, 13, 64
    adj = rng.integers(0, n_faces, (n_faces, 3)).astype(np.int32)
    x = rng.standard_normal((n_faces, in_feats), dtype=np.float32)
    w0, w1, w2, w3 = (rng.standard_normal((in_feats, out_feats), dtype=np.float32) for _ in range(4))
    result = subdivnet(adj, x, w0, w1, w2, w3)
    for name, value in result.items():
        print("subdivnet:", name, value.shape, "sum", float(value.sum()))
