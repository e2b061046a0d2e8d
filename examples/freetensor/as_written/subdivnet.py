"""SubdivNet's mesh convolution as FreeTensor's users write it: each face's
neighbours, found through the adjacency array, summed three ways into local
tensors (their features, their circular differences, their differences
from the face), then the four products accumulated into the result:
    y_i = W0 e_i + W1 sum_j e_j + W2 sum_j |e_j - e_j+1| + W3 sum_j |e_i - e_j|"""
from __future__ import annotations  # size names in annotations need not exist in Python

import teml

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
        for p in range(3):
            for c in range(IN_FEATS):
                sum1[c] += e[adj[i, p], c]
                sum2[c] += abs(e[adj[i, p], c] - e[adj[i, (p + 1) % 3], c])
                sum3[c] += abs(e[i, c] - e[adj[i, p], c])
        for o in range(OUT_FEATS):
            y[i, o] = 0
            for c in range(IN_FEATS):
                y[i, o] += e[i, c] * w0[c, o] + sum1[c] * w1[c, o] + sum2[c] * w2[c, o] + sum3[c] * w3[c, o]
