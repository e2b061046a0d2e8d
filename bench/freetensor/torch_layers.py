#!/usr/bin/python3
"""The four workloads written with PyTorch operators, as a user of an
operator framework writes them (the baselines of FreeTensor's Section 6),
and a timer for them.

    /usr/bin/python3 bench/freetensor/torch_layers.py NAME DATA_DIR [--runs N] [--out FILE.npy] [--grad X,Y..]

prints {"name": ..., "runs": N, "min_s": ..., "median_s": ...,
"peak_memory_mb": ...} after one warm-up run; the inputs are read and
converted before timing; the memory is how far the resident set grew while
the layer ran (its intermediates and output). PyTorch runs
on 2 threads (torch.set_num_threads(2)). With --grad, each run is the
forward pass and autograd's backward pass of the sum of the output with
respect to the named inputs (the layers written for autograd below)."""
import json
import pathlib
import resource
import statistics
import sys
import time

import numpy as np
import torch

torch.set_num_threads(2)


def subdivnet(e, adj, w0, w1, w2, w3):
    # FreeTensor's Figure 2(c), then the four products
    n, c = e.shape
    adj_feat = torch.index_select(e, 0, adj.flatten()).reshape(n, 3, c)
    reordered = torch.cat([adj_feat[:, 1:], adj_feat[:, :1]], dim=1)
    circular = torch.sum(torch.abs(adj_feat - reordered), dim=1)
    central = torch.sum(torch.abs(e.unsqueeze(1) - adj_feat), dim=1)
    return e @ w0 + adj_feat.sum(1) @ w1 + circular @ w2 + central @ w3


def longformer(q, k, v, w=32, dilation=4, dilation_heads=2):
    # Windows as strided views of the padded K and V, head by head (all
    # heads at once would materialise 8 x 1.3 GB of windows).
    heads, n, f = q.shape
    y = torch.empty_like(q)
    for h in range(heads):
        d = dilation if h < dilation_heads else 1
        pad = w * d
        kp = torch.nn.functional.pad(k[h], (0, 0, pad, pad))
        vp = torch.nn.functional.pad(v[h], (0, 0, pad, pad))
        kw = kp.as_strided((n, 2 * w + 1, f), (f, d * f, 1))
        vw = vp.as_strided((n, 2 * w + 1, f), (f, d * f, 1))
        scores = torch.einsum("jf,jtf->jt", q[h], kw)
        keys = torch.arange(n)[:, None] + torch.arange(-w, w + 1)[None, :] * d
        scores.masked_fill_((keys < 0) | (keys >= n), float("-inf"))
        attn = torch.softmax(scores, dim=-1)
        y[h] = torch.einsum("jt,jtf->jf", attn, vw)
    return y


def softras(faces, height=64, width=64, sigma=1e-4):
    # Per-face probability maps on (faces, H, W) planes, x and y apart: an
    # edge's terms broadcast from (F, 1, W) and (F, H, 1), one pass per operator
    px = ((2 * torch.arange(width) + 1) / width - 1).view(1, 1, width)
    py = (1 - (2 * torch.arange(height) + 1) / height).view(1, height, 1)
    x, y = faces[:, :, 0, None, None], faces[:, :, 1, None, None]  # (F, 3, 1, 1), views
    d2, lo, hi = None, None, None
    for k in range(3):  # the triangle's three edges a-b
        ax, ay, dx, dy = x[:, k], y[:, k], x[:, (k + 1) % 3] - x[:, k], y[:, (k + 1) % 3] - y[:, k]
        ex, ey = px - ax, py - ay
        t = (ex * dx + ey * dy).div_(dx * dx + dy * dy).clamp_(0, 1)
        dist = (ex - t * dx).square_().add_((ey - t * dy).square_())
        side = dx * ey - dy * ex  # the edge function: its sign says which side of the edge
        d2 = dist if d2 is None else torch.minimum(d2, dist, out=d2)
        lo = side if lo is None else torch.minimum(lo, side, out=lo)
        hi = side.clone() if hi is None else torch.maximum(hi, side, out=hi)
    inside = (lo >= 0) | (hi <= 0)
    return torch.sigmoid_(torch.where(inside, d2, -d2).div_(sigma))


def gat(ptr, idx, feat, weight, attn_l, attn_r, slope=0.2):
    # FreeTensor's experiment: project, score the edges, a softmax per node,
    # aggregate. Segment reductions over the CSR rows (no scatter) and a CSR
    # sparse-dense product; the softmax's division once per node, after it.
    n = feat.shape[0]
    h = feat @ weight
    el, er = h @ attn_l, h @ attn_r
    degree = ptr[1:] - ptr[:-1]
    score = torch.nn.functional.leaky_relu(el[idx] + er.repeat_interleave(degree), slope)
    top = torch.segment_reduce(score, "max", lengths=degree, unsafe=True)
    w = torch.exp_(score - top.repeat_interleave(degree))
    total = torch.segment_reduce(w, "sum", lengths=degree, unsafe=True)
    # the public constructor refuses repeated neighbours (a multigraph): skip its check
    if hasattr(torch, "_sparse_csr_tensor_unsafe"):
        a = torch._sparse_csr_tensor_unsafe(ptr, idx, w, (n, n))
    else:  # PyTorch 2.11 and later
        a = torch.sparse_csr_tensor(ptr, idx, w, (n, n), check_invariants=False)
    return (a @ h).div_(total.clamp_(min=1)[:, None])  # total >= 1 (its top edge gives exp(0)); 0 for no edges


# The same layers for autograd (the baselines of the gradient benchmark and
# tests): the same operators without the in-place ones autograd refuses.
def softras_for_autograd(faces, height=64, width=64, sigma=1e-4):
    px = ((2 * torch.arange(width) + 1) / width - 1).view(1, 1, width)
    py = (1 - (2 * torch.arange(height) + 1) / height).view(1, height, 1)
    x, y = faces[:, :, 0, None, None], faces[:, :, 1, None, None]
    d2, lo, hi = None, None, None
    for k in range(3):
        ax, ay, dx, dy = x[:, k], y[:, k], x[:, (k + 1) % 3] - x[:, k], y[:, (k + 1) % 3] - y[:, k]
        ex, ey = px - ax, py - ay
        t = ((ex * dx + ey * dy) / (dx * dx + dy * dy)).clamp(0, 1)
        dist = (ex - t * dx).square() + (ey - t * dy).square()
        side = dx * ey - dy * ex
        d2 = dist if d2 is None else torch.minimum(d2, dist)
        lo = side if lo is None else torch.minimum(lo, side)
        hi = side if hi is None else torch.maximum(hi, side)
    inside = (lo >= 0) | (hi <= 0)
    return torch.sigmoid(torch.where(inside, d2, -d2) / sigma)


def gat_for_autograd(ptr, idx, feat, weight, attn_l, attn_r, slope=0.2):
    n = feat.shape[0]
    h = feat @ weight
    el, er = h @ attn_l, h @ attn_r
    degree = ptr[1:] - ptr[:-1]
    node = torch.repeat_interleave(torch.arange(n), degree)  # each edge's destination
    score = torch.nn.functional.leaky_relu(el[idx] + er[node], slope)
    top = torch.segment_reduce(score, "max", lengths=degree, unsafe=True)
    w = torch.exp(score - top[node])
    total = torch.segment_reduce(w, "sum", lengths=degree, unsafe=True)
    acc = torch.zeros(n, h.shape[1], dtype=h.dtype).index_add(0, node, w[:, None] * h[idx])
    return acc / total.clamp(min=1)[:, None]


def load(name, directory):
    tensors = {p.stem: torch.from_numpy(np.load(p)) for p in sorted(pathlib.Path(directory).glob("*.npy"))}
    if name == "subdivnet":
        tensors["adj"] = tensors["adj"].long()
    if name == "gat":
        tensors["ptr"] = tensors["ptr"].long()  # PyTorch's indices are int64; all else is timed
        tensors["idx"] = tensors["idx"].long()
    return tensors


def main():
    name, directory = sys.argv[1], sys.argv[2]
    runs = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 5
    inputs = load(name, directory)
    rss_before = resident_mb()
    times = []
    if "--grad" in sys.argv:
        layer = globals().get(name + "_for_autograd", globals()[name])
        wrt = sys.argv[sys.argv.index("--grad") + 1].split(",")
        for x in wrt:
            inputs[x].requires_grad_(True)
        for run in range(runs + 1):  # a warm-up, then the timed runs
            for x in wrt:
                inputs[x].grad = None
            start = time.perf_counter()
            out = layer(**inputs)
            out.sum().backward()
            if run:
                times.append(time.perf_counter() - start)
        out = out.detach()
        if "--grad-out" in sys.argv:  # each gradient as DIR/X.grad.npy
            for x in wrt:
                np.save(pathlib.Path(sys.argv[sys.argv.index("--grad-out") + 1]) / f"{x}.grad.npy", inputs[x].grad.numpy())
    else:
        layer = globals()[name]
        with torch.no_grad():
            out = layer(**inputs)  # warm-up
            for _ in range(runs):
                start = time.perf_counter()
                out = layer(**inputs)
                times.append(time.perf_counter() - start)
    if "--out" in sys.argv:
        np.save(sys.argv[sys.argv.index("--out") + 1], out.numpy())
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"name": name, "runs": runs, "min_s": min(times), "median_s": statistics.median(times),
                      "peak_memory_mb": max(0.0, peak - rss_before), "peak_rss_mb": peak}))


def resident_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2 ** 20


if __name__ == "__main__":
    main()
