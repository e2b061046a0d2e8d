#!/usr/bin/python3
"""Realistic synthetic inputs for the four free-form workloads, as .npy.

    /usr/bin/python3 examples/freetensor/make_inputs.py OUT_DIR [--small]

subdivnet/: a subdivided icosahedron (20 * 4^5 = 20480 faces) with its face
    adjacency (the three faces across the edges v0-v1, v1-v2, v2-v0), face
    features and the four weight matrices.
longformer/: random Q, K, V of 8 heads x 10000 tokens x 512 features.
softras/: a subdivided icosahedron (1280 faces), rotated, seen from the
    front (orthographic: the x, y of each vertex).
gat/: a power-law random graph (Chung-Lu: 100000 nodes, about 1.2M edges)
    in CSR form, node features, the 32 x 32 projection and the two attention
    vectors.
--small: sizes for tests (a few hundred faces, tokens, nodes)."""
import pathlib
import sys

import numpy as np


def icosphere(levels):
    """Vertices and faces (counter-clockwise seen from outside) of an icosahedron subdivided `levels` times."""
    t = (1 + 5 ** 0.5) / 2
    verts = [(-1, t, 0), (1, t, 0), (-1, -t, 0), (1, -t, 0), (0, -1, t), (0, 1, t),
             (0, -1, -t), (0, 1, -t), (t, 0, -1), (t, 0, 1), (-t, 0, -1), (-t, 0, 1)]
    faces = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4), (11, 10, 2),
             (10, 7, 6), (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8), (3, 8, 9), (4, 9, 5),
             (2, 4, 11), (6, 2, 10), (8, 6, 7), (9, 8, 1)]
    verts = [np.array(v, float) / np.linalg.norm(v) for v in verts]
    for _ in range(levels):
        midpoint = {}

        def middle(a, b):
            key = (min(a, b), max(a, b))
            if key not in midpoint:
                m = verts[a] + verts[b]
                verts.append(m / np.linalg.norm(m))
                midpoint[key] = len(verts) - 1
            return midpoint[key]

        new = []
        for a, b, c in faces:
            ab, bc, ca = middle(a, b), middle(b, c), middle(c, a)
            new += [(a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca)]
        faces = new
    return np.array(verts), np.array(faces)


def face_adjacency(faces):
    """adj[f, k]: the face across edge (v_k, v_k+1) of face f."""
    owner = {}
    for f, tri in enumerate(faces):
        for k in range(3):
            owner[(tri[k], tri[(k + 1) % 3])] = f
    adj = np.empty((len(faces), 3), np.int32)
    for f, tri in enumerate(faces):
        for k in range(3):
            adj[f, k] = owner[(tri[(k + 1) % 3], tri[k])]  # the same edge, walked the other way
    return adj


def subdivnet(rng, small=False):
    _, faces = icosphere(2 if small else 5)
    n = len(faces)
    return {"e": rng.standard_normal((n, 13)).astype(np.float32),
            "adj": face_adjacency(faces),
            **{f"w{k}": (rng.standard_normal((13, 64)) / 13 ** 0.5).astype(np.float32) for k in range(4)}}


def longformer(rng, small=False):
    heads, seq_len, feat_len = (8, 200, 32) if small else (8, 10000, 512)
    scale = feat_len ** -0.25  # keeps the scores of a softmax in a sensible range
    return {name: (rng.standard_normal((heads, seq_len, feat_len)) * scale).astype(np.float32) for name in "qkv"}


def softras(rng, small=False):
    verts, faces = icosphere(1 if small else 3)
    a, b = 0.4, 0.7  # a view from slightly above and to the side
    rx = np.array([[1, 0, 0], [0, np.cos(a), -np.sin(a)], [0, np.sin(a), np.cos(a)]])
    ry = np.array([[np.cos(b), 0, np.sin(b)], [0, 1, 0], [-np.sin(b), 0, np.cos(b)]])
    seen = verts @ (ry @ rx).T * 0.8
    return {"faces": seen[faces][:, :, :2].astype(np.float32)}


def gat(rng, small=False):
    n = 300 if small else 100000
    average_degree = 12
    # Chung-Lu: edge (i, j) with probability ~ w_i w_j, w a power law (exponent 2.5).
    w = (np.arange(1, n + 1) ** (-1 / 1.5))
    w *= average_degree * n / w.sum()
    m = int(w.sum())
    p = w / w.sum()
    src = rng.choice(n, size=m, p=p)
    dst = rng.choice(n, size=m, p=p)
    order = np.lexsort((src, dst))
    src, dst = src[order], dst[order]
    ptr = np.zeros(n + 1, np.int64)
    np.add.at(ptr, dst + 1, 1)
    return {"ptr": np.cumsum(ptr).astype(np.int32),
            "idx": src.astype(np.int32),
            "feat": rng.standard_normal((n, 32)).astype(np.float32),
            "attn_l": (rng.standard_normal(32) / 32 ** 0.5).astype(np.float32),
            "attn_r": (rng.standard_normal(32) / 32 ** 0.5).astype(np.float32),
            "weight": (rng.standard_normal((32, 32)) / 32 ** 0.5).astype(np.float32)}


WORKLOADS = {"subdivnet": subdivnet, "longformer": longformer, "softras": softras, "gat": gat}


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = pathlib.Path(sys.argv[1])
    small = "--small" in sys.argv[2:]
    for name, make in WORKLOADS.items():
        directory = out / name
        directory.mkdir(parents=True, exist_ok=True)
        for tensor, value in make(np.random.default_rng(2026), small).items():
            np.save(directory / f"{tensor}.npy", value)
        print(f"{directory}: " + ", ".join(f"{t} {v.shape}" for t, v in make(np.random.default_rng(2026), small).items()))


if __name__ == "__main__":
    main()
