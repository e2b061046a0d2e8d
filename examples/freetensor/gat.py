"""A GAT layer's attention and aggregation (FreeTensor, Section 6.1) on a
graph in CSR form: node i's in-neighbours are idx[ptr[i]:ptr[i + 1]]. Each
edge is scored leaky_relu(el[j] + er[i]) (el, er: the features projected
on the two attention vectors), the scores of a node's edges go through a
softmax, and the node's new features are its neighbours' features weighted
by them."""
from __future__ import annotations  # size names in annotations need not exist in Python

import teml

FEAT = 32
SLOPE = 0.2


def leaky_relu(x):
    return max(x, SLOPE * x)


@teml.transform
def gat_layer(ptr: teml.Var[(n_nodes + 1,), "int32"],
              idx: teml.Var[(n_edges,), "int32"],
              feat: teml.Var[(n_nodes, FEAT), "float32"],
              attn_l: teml.Var[(FEAT,), "float32"],
              attn_r: teml.Var[(FEAT,), "float32"],
              y: teml.Var[(n_nodes, FEAT), "float32", "output"]):
    el = teml.zeros((n_nodes,), "float32")
    er = teml.zeros((n_nodes,), "float32")
    #! label: Lproject
    for i in range(n_nodes):
        for c in range(FEAT):
            el[i] += feat[i, c] * attn_l[c]
            er[i] += feat[i, c] * attn_r[c]
    #! label: Lnode
    for i in range(n_nodes):
        top = teml.full((), -float("inf"), "float32")
        for p in range(ptr[i], ptr[i + 1]):
            top[()] = max(top, leaky_relu(el[idx[p]] + er[i]))
        total = teml.zeros((), "float32")
        for p in range(ptr[i], ptr[i + 1]):
            total[()] += teml.exp(leaky_relu(el[idx[p]] + er[i]) - top)
        for p in range(ptr[i], ptr[i + 1]):
            weight = teml.exp(leaky_relu(el[idx[p]] + er[i]) - top) / total
            y[i] += weight * feat[idx[p]]


@teml.schedule(gat_layer)
def schedule(s):
    s.parallelize("Lproject")
    s.parallelize("Lnode", "dynamic")
