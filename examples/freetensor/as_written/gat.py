"""A GAT layer as FreeTensor's users write it: project the features, score
each edge by a leaky ReLU of its two attention terms, softmax the scores of
a node's edges in place in `edge`, and divide the weighted sum of the
neighbours' features in place. Node i's in-neighbours are
idx[ptr[i]:ptr[i + 1]]."""
from __future__ import annotations  # size names in annotations need not exist in Python

import teml
from teml import libop

FEAT = 32


@teml.transform
def gat_layer(ptr: teml.Var[(n_nodes + 1,), "int32"],
              idx: teml.Var[(n_edges,), "int32"],
              feat: teml.Var[(n_nodes, FEAT), "float32"],
              weight: teml.Var[(FEAT, FEAT), "float32"],
              attn_l: teml.Var[(FEAT,), "float32"],
              attn_r: teml.Var[(FEAT,), "float32"],
              y: teml.Var[(n_nodes, FEAT), "float32", "output"]):
    h = libop.matmul(feat, weight)
    a_l = libop.matmul(h, attn_l)
    a_r = libop.matmul(h, attn_r)
    edge = teml.empty((n_edges,), "float32")
    for i in range(n_nodes):
        edge_max = teml.empty((), "float32")
        edge_max[()] = -float("inf")
        for k in range(ptr[i], ptr[i + 1]):
            e = a_l[idx[k]] + a_r[i]
            edge[k] = e if e >= 0 else 0.2 * e
            edge_max[()] = max(edge_max[()], edge[k])
        edge_sum = teml.empty((), "float32")
        edge_sum[()] = 0
        for k in range(ptr[i], ptr[i + 1]):
            edge[k] = teml.exp(edge[k] - edge_max[()])
            edge_sum[()] += edge[k]
        for j in range(FEAT):
            y[i, j] = 0
            for k in range(ptr[i], ptr[i + 1]):
                y[i, j] += h[idx[k], j] * edge[k]
            if ptr[i] < ptr[i + 1]:
                y[i, j] /= edge_sum[()]
