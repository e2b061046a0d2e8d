"""SubdivNet's mesh convolution as FreeTensor's users write it: each face's
neighbours, found through the adjacency array, summed three ways into local
tensors, row by row (their features, their circular differences, their
differences from the face; FreeTensor's Figure 3), then the four products
by libop.matmul:
    y_i = W0 e_i + W1 sum_j e_j + W2 sum_j |e_j - e_j+1| + W3 sum_j |e_i - e_j|"""
from __future__ import annotations  # size names in annotations need not exist in Python

import teml
from teml import libop

IN_FEATS = 13
OUT_FEATS = 64


@teml.transform
def subdivnet_conv(e: teml.Var[(n_faces, IN_FEATS), "float32"],
                   adj: teml.Var[(n_faces, 3), "int32"],
                   w0: teml.Var[(IN_FEATS, OUT_FEATS), "float32"],
                   w1: teml.Var[(IN_FEATS, OUT_FEATS), "float32"],
                   w2: teml.Var[(IN_FEATS, OUT_FEATS), "float32"],
                   w3: teml.Var[(IN_FEATS, OUT_FEATS), "float32"],
                   y: teml.Var[(n_faces, OUT_FEATS), "float32", "output"]):
    for i in range(n_faces):
        sum1 = teml.zeros((IN_FEATS,), "float32")
        sum2 = teml.zeros((IN_FEATS,), "float32")
        sum3 = teml.zeros((IN_FEATS,), "float32")
        for j in range(3):
            sum1[:] += e[adj[i, j]]
            sum2[:] += abs(e[adj[i, j]] - e[adj[i, (j + 1) % 3]])
            sum3[:] += abs(e[i] - e[adj[i, j]])
        y[i] = libop.matmul(e[i], w0) + libop.matmul(sum1, w1) + libop.matmul(sum2, w2) + libop.matmul(sum3, w3)
