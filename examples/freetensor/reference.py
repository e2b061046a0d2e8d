"""NumPy implementations of the four workloads, written independently of
the free-form programs, for the tests (tests/freeform/test_workloads.py)."""
import numpy as np


def subdivnet(e, adj, w0, w1, w2, w3):
    e = e.astype(np.float64)
    nb = e[adj]                                       # (faces, 3, in)
    circular = np.abs(nb - np.roll(nb, -1, axis=1)).sum(1)
    central = np.abs(e[:, None, :] - nb).sum(1)
    return e @ w0 + nb.sum(1) @ w1 + circular @ w2 + central @ w3


def longformer(q, k, v, w=32, dilation=4, dilation_heads=2):
    heads, n, _ = q.shape
    y = np.zeros(q.shape)
    for h in range(heads):
        d = dilation if h < dilation_heads else 1
        offsets = np.arange(-w, w + 1) * d
        keys = np.arange(n)[:, None] + offsets[None, :]        # (n, 2w+1)
        valid = (keys >= 0) & (keys < n)
        keys = np.clip(keys, 0, n - 1)
        scores = np.einsum("jf,jtf->jt", q[h].astype(np.float64), k[h][keys].astype(np.float64))
        scores = np.where(valid, scores, -np.inf)
        attn = np.exp(scores - scores.max(1, keepdims=True))
        attn /= attn.sum(1, keepdims=True)
        y[h] = np.einsum("jt,jtf->jf", attn, v[h][keys].astype(np.float64))
    return y


def softras(faces, height=64, width=64, sigma=1e-4):
    f = faces.astype(np.float64)
    py = 1 - (2 * np.arange(height) + 1) / height
    px = (2 * np.arange(width) + 1) / width - 1
    p = np.stack(np.meshgrid(px, py), -1).reshape(-1, 1, 2)         # (pixels, 1, 2), row-major
    d2 = np.full((p.shape[0], len(f)), np.inf)
    sides = []
    for k in range(3):
        a, b = f[None, :, k], f[None, :, (k + 1) % 3]
        ab, ap = b - a, p - a
        t = (ap * ab).sum(-1) / (ab * ab).sum(-1)
        closest = a + np.clip(t, 0, 1)[..., None] * ab
        d2 = np.minimum(d2, ((p - closest) ** 2).sum(-1))
        sides.append(ab[..., 0] * ap[..., 1] - ab[..., 1] * ap[..., 0])
    s = np.stack(sides)
    inside = (s >= 0).all(0) | (s <= 0).all(0)
    with np.errstate(over="ignore"):  # exp(large) = inf: probability 0, as intended
        prob = 1 / (1 + np.exp(-np.where(inside, d2, -d2) / sigma))
    return (1 - np.prod(1 - prob, axis=1)).reshape(height, width)


def gat(ptr, idx, feat, attn_l, attn_r, slope=0.2):
    feat = feat.astype(np.float64)
    n = len(ptr) - 1
    el, er = feat @ attn_l, feat @ attn_r
    dst = np.repeat(np.arange(n), np.diff(ptr))
    score = el[idx] + er[dst]
    score = np.maximum(score, slope * score)
    top = np.full(n, -np.inf)
    np.maximum.at(top, dst, score)
    weight = np.exp(score - top[dst])
    total = np.zeros(n)
    np.add.at(total, dst, weight)
    y = np.zeros_like(feat)
    np.add.at(y, dst, (weight / total[dst])[:, None] * feat[idx])
    return y
