"""A GAT layer on a graph in compressed rows (CSR), returning the new node
features `y`. Node i's in-neighbours are idx[ptr[i]:ptr[i + 1]], so `ptr`
has n_nodes + 1 entries (the size n_nodes is solved from its shape).

Follows FreeTensor's experiments/gat/ours/main.py: the projection
`feat @ weight`, the attention terms of both ends of each edge, a leaky ReLU
(slope 0.1) of their sum, the softmax of a node's edge scores (running
maximum, exponentials, their sum) and the weighted sum of the neighbours'
projected features (32 features in the experiment). There `y` is an output
parameter; here the function makes it and returns it."""
from __future__ import annotations  # size names in annotations need not exist in Python

import numpy as np

import teml
from teml import libop


@teml.transform
def gat(ptr: teml.Var[(n_nodes + 1,), "int32"],
        idx: teml.Var[(n_edges,), "int32"],
        feat: teml.Var[(n_nodes, feat_len), "float32"],
        weight: teml.Var[(feat_len, feat_len), "float32"],
        attn_l: teml.Var[(feat_len,), "float32"],
        attn_r: teml.Var[(feat_len,), "float32"]):
    h = libop.matmul(feat, weight)
    att_l = libop.matmul(h, attn_l)
    att_r = libop.matmul(h, attn_r)
    edge = teml.empty((n_edges,), "float32")
    edge_exp = teml.empty((n_edges,), "float32")
    y = teml.zeros((n_nodes, feat_len), "float32")
    for i in range(n_nodes):
        edge_max = teml.full((), -float("inf"), "float32")
        for k in range(ptr[i], ptr[i + 1]):
            e = att_l[idx[k]] + att_r[i]
            edge[k] = e if e >= 0 else e * 0.1
            edge_max[()] = max(edge_max[()], edge[k])
        edge_sum = teml.zeros((), "float32")
        for k in range(ptr[i], ptr[i + 1]):
            edge_exp[k] = teml.exp(edge[k] - edge_max[()])
            edge_sum[()] += edge_exp[k]
        for j in range(feat_len):
            for k in range(ptr[i], ptr[i + 1]):
                y[i, j] += h[idx[k], j] * edge_exp[k] / edge_sum[()]
    return y


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    n_nodes, feat_len = 1000, 32
    degrees = rng.integers(0, 12, n_nodes)
    ptr = np.concatenate([[0], np.cumsum(degrees)]).astype(np.int32)
    idx = rng.integers(0, n_nodes, int(ptr[-1])).astype(np.int32)
    feat = rng.standard_normal((n_nodes, feat_len), dtype=np.float32)
    weight = rng.standard_normal((feat_len, feat_len), dtype=np.float32) / np.sqrt(feat_len)
    attn_l = rng.standard_normal(feat_len, dtype=np.float32)
    attn_r = rng.standard_normal(feat_len, dtype=np.float32)
    y = gat(ptr, idx, feat, weight, attn_l, attn_r)
    print("gat: y", y.shape, "sum", float(y.sum()), "edges", int(ptr[-1]))
