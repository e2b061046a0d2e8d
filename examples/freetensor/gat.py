"""A GAT layer (FreeTensor, Section 6.1, as in its experiment) on a graph
in CSR form: node i's in-neighbours are idx[ptr[i]:ptr[i + 1]]. The
features are projected (h = feat @ weight), each edge is scored
leaky_relu(el[j] + er[i]) (el, er: h projected on the two attention
vectors), the scores of a node's edges go through a softmax, and the
node's new features are its neighbours' h weighted by them."""
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
              weight: teml.Var[(FEAT, FEAT), "float32"],
              attn_l: teml.Var[(FEAT,), "float32"],
              attn_r: teml.Var[(FEAT,), "float32"],
              y: teml.Var[(n_nodes, FEAT), "float32", "output"]):
    h = teml.zeros((n_nodes, FEAT), "float32")
    el = teml.zeros((n_nodes,), "float32")
    er = teml.zeros((n_nodes,), "float32")
    #! label: Lproject
    for i in range(n_nodes):
        for c in range(FEAT):
            #! label: Lrow
            h[i] += feat[i, c] * weight[c]
        for c in range(FEAT):
            el[i] += h[i, c] * attn_l[c]
            er[i] += h[i, c] * attn_r[c]
    #! label: Lnode
    for i in range(n_nodes):
        top = teml.full((), -float("inf"), "float32")
        #! label: Lmax
        for p in range(ptr[i], ptr[i + 1]):
            top[()] = max(top, leaky_relu(el[idx[p]] + er[i]))
        # one exp per edge; the softmax's division once per node, at the end
        total = teml.zeros((), "float32")
        acc = teml.zeros((FEAT,), "float32")
        #! label: Ledge
        for p in range(ptr[i], ptr[i + 1]):
            weight_p = teml.exp(leaky_relu(el[idx[p]] + er[i]) - top)
            total[()] += weight_p
            #! label: Lacc
            acc[:] += weight_p * h[idx[p]]
        if ptr[i] < ptr[i + 1]:
            #! label: Lout
            y[i] = acc / total


@teml.schedule(gat_layer)
def schedule(s):
    s.parallelize("Lproject")
    s.vectorize("Lrow")
    # blocks of nodes, handed out dynamically (power-law degrees): one
    # hand-out per node costs more than a low-degree node's work
    blocks, _ = s.split("Lnode", 512)
    s.parallelize(blocks, "dynamic")
    s.vectorize("Lacc")
    s.vectorize("Lout")


@teml.schedule(gat_layer, target="cuda")
def gpu_schedule(s):
    # A block (one warp) per node, its in-edges shared by the warp's 32
    # threads in contiguous chunks: a node with thousands of edges is no
    # longer walked by one thread. Each thread sums its edges' weighted rows
    # in registers (acc_cache) and adds them to the block's row once.
    s.parallelize("Lnode", "blockIdx.x")
    lanes, _ = s.split("Lmax", nparts=32)
    s.parallelize(lanes, "threadIdx.x")
    lanes, _ = s.split("Ledge", nparts=32)
    s.parallelize(lanes, "threadIdx.x")
    s.cache_reduce(lanes, "acc")
    s.parallelize("Lout", "threadIdx.x")
    s.auto_schedule()
