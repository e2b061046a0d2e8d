#!/usr/bin/python3
"""The four workloads written with PyTorch operators, as a user of an
operator framework writes them (the baselines of FreeTensor's Section 6),
and a timer for them.

    /usr/bin/python3 bench/freetensor/torch_layers.py NAME DATA_DIR [--runs N] [--out FILE.npy]

prints {"name": ..., "runs": N, "min_s": ..., "median_s": ...,
"peak_memory_mb": ...} after one warm-up run; the inputs are read and
converted before timing; the memory is how far the resident set grew while
the layer ran (its intermediates and output). PyTorch runs
on 2 threads (torch.set_num_threads(2))."""
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
    py = 1 - (2 * torch.arange(height) + 1) / height
    px = (2 * torch.arange(width) + 1) / width - 1
    p = torch.stack(torch.meshgrid(py, px, indexing="ij")[::-1], -1).reshape(-1, 1, 2)
    d2 = torch.full((p.shape[0], faces.shape[0]), float("inf"))
    sides = []
    for k in range(3):
        a, b = faces[None, :, k], faces[None, :, (k + 1) % 3]
        ab, ap = b - a, p - a
        t = (ap * ab).sum(-1) / (ab * ab).sum(-1)
        closest = a + t.clamp(0, 1)[..., None] * ab
        d2 = torch.minimum(d2, ((p - closest) ** 2).sum(-1))
        sides.append(ab[..., 0] * ap[..., 1] - ab[..., 1] * ap[..., 0])
    s = torch.stack(sides)
    inside = (s >= 0).all(0) | (s <= 0).all(0)
    prob = torch.sigmoid(torch.where(inside, d2, -d2) / sigma)
    return (1 - torch.prod(1 - prob, dim=1)).reshape(height, width)


def gat(ptr, idx, feat, attn_l, attn_r, dst, slope=0.2):
    # DGL's way: edge-wise scores, a scatter max and sums for the softmax
    n = feat.shape[0]
    el, er = feat @ attn_l, feat @ attn_r
    score = torch.nn.functional.leaky_relu(el[idx] + er[dst], slope)
    top = torch.full((n,), float("-inf")).scatter_reduce(0, dst, score, "amax")
    weight = torch.exp(score - top[dst])
    total = torch.zeros(n).index_add_(0, dst, weight)
    return torch.zeros_like(feat).index_add_(0, dst, (weight / total[dst])[:, None] * feat[idx])


def load(name, directory):
    tensors = {p.stem: torch.from_numpy(np.load(p)) for p in sorted(pathlib.Path(directory).glob("*.npy"))}
    if name == "subdivnet":
        tensors["adj"] = tensors["adj"].long()
    if name == "gat":
        ptr = tensors["ptr"].long()
        tensors["idx"] = tensors["idx"].long()
        tensors["dst"] = torch.repeat_interleave(torch.arange(len(ptr) - 1), ptr[1:] - ptr[:-1])
        tensors["ptr"] = ptr
    return tensors


def main():
    name, directory = sys.argv[1], sys.argv[2]
    runs = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 5
    layer = globals()[name]
    inputs = load(name, directory)
    rss_before = resident_mb()
    with torch.no_grad():
        out = layer(**inputs)  # warm-up
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            out = layer(**inputs)
            times.append(time.perf_counter() - start)
    if "--out" in sys.argv:
        np.save(sys.argv[sys.argv.index("--out") + 1], out.numpy())
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"name": name, "runs": runs, "min_s": min(times), "median_s": statistics.median(times),
                      "peak_memory_mb": max(0.0, peak - rss_before)}))


def resident_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2 ** 20


if __name__ == "__main__":
    main()
