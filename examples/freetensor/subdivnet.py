"""SubdivNet's mesh convolution (FreeTensor, Section 2.2 and Figure 3): every
face combines its own features with those of its three neighbours, through
their sum, their circular differences and their differences from the face:

    y_i = W0 e_i + W1 sum_j e_j + W2 sum_j |e_j - e_j+1| + W3 sum_j |e_i - e_j|

Neighbours are found through the adjacency array, one face at a time: no
gathered (n_faces, 3, in_feats) intermediate as in an operator framework."""
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
    #! label: Lface
    for i in range(n_faces):
        neighbours = teml.zeros((IN_FEATS,), "float32")
        circular = teml.zeros((IN_FEATS,), "float32")
        central = teml.zeros((IN_FEATS,), "float32")
        for p in range(3):
            neighbours[:] += e[adj[i, p]]
            circular[:] += abs(e[adj[i, p]] - e[adj[i, (p + 1) % 3]])
            central[:] += abs(e[i] - e[adj[i, p]])
        for c in range(IN_FEATS):
            #! label: Lout
            y[i] += e[i, c] * w0[c] + neighbours[c] * w1[c] + circular[c] * w2[c] + central[c] * w3[c]


@teml.schedule(subdivnet_conv)
def schedule(s):
    s.parallelize("Lface")
    s.vectorize("Lout")
