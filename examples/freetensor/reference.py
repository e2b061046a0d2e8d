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
    """prob[f, i, j]: sigmoid(+-d^2 / sigma) of face f at pixel (i, j)."""
    f = faces.astype(np.float64)
    px = (2 * np.arange(width) + 1) / width - 1
    py = 1 - (2 * np.arange(height) + 1) / height
    p = np.stack(np.meshgrid(px, py), -1)[None, :, :, None, :]      # (1, H, W, 1, 2)
    a = f[:, None, None, :, :]                                        # (F, 1, 1, 3, 2): edge starts
    ab = np.roll(f, -1, axis=1)[:, None, None] - a                    # edge vectors
    ap = p - a
    t = np.clip((ap * ab).sum(-1) / (ab * ab).sum(-1), 0, 1)
    d2 = ((ap - t[..., None] * ab) ** 2).sum(-1).min(-1)              # (F, H, W)
    side = ab[..., 0] * ap[..., 1] - ab[..., 1] * ap[..., 0]
    inside = (side >= 0).all(-1) | (side <= 0).all(-1)
    with np.errstate(over="ignore"):  # exp(large) = inf: probability 0, as intended
        return 1 / (1 + np.exp(-np.where(inside, d2, -d2) / sigma))


def gat(ptr, idx, feat, weight, attn_l, attn_r, slope=0.2):
    h = feat.astype(np.float64) @ weight
    n = len(ptr) - 1
    el, er = h @ attn_l, h @ attn_r
    dst = np.repeat(np.arange(n), np.diff(ptr))
    score = el[idx] + er[dst]
    score = np.maximum(score, slope * score)
    top = np.full(n, -np.inf)
    np.maximum.at(top, dst, score)
    w = np.exp(score - top[dst])
    total = np.zeros(n)
    np.add.at(total, dst, w)
    y = np.zeros_like(h)
    np.add.at(y, dst, (w / total[dst])[:, None] * h[idx])
    return y
