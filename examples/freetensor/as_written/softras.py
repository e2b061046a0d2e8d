"""SoftRas's soft rasterizer as FreeTensor's users write it: for every face
and pixel, the squared distance from the pixel's centre to each edge in an
inlined helper that writes a local scalar in branches, their minimum, the
inside test from three cross products, and prob = sigmoid(+-d^2 / sigma)."""
from __future__ import annotations  # size names in annotations need not exist in Python

import teml

SIGMA = 1e-4
H = 64
W = 64


def dist2_to_segment(px, py, ax, ay, bx, by):
    d = teml.empty((), "float32")
    dx = bx - ax
    dy = by - ay
    t = ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)
    if t < 0:
        d[()] = (px - ax) * (px - ax) + (py - ay) * (py - ay)
    elif t > 1:
        d[()] = (px - bx) * (px - bx) + (py - by) * (py - by)
    else:
        d[()] = (px - ax - t * dx) * (px - ax - t * dx) + (py - ay - t * dy) * (py - ay - t * dy)
    return d[()]


def cross(ax, ay, bx, by):
    return ax * by - ay * bx


@teml.transform
def soft_rasterize(faces: teml.Var[(n_faces, 3, 2), "float32"],
                   prob: teml.Var[(n_faces, H, W), "float32", "output"]):
    for f in range(n_faces):
        for i in range(H):
            for j in range(W):
                px = (2 * j + 1) / W - 1
                py = 1 - (2 * i + 1) / H
                a = faces[f, 0]
                b = faces[f, 1]
                c = faces[f, 2]
                dist = min(dist2_to_segment(px, py, a[0], a[1], b[0], b[1]),
                           dist2_to_segment(px, py, b[0], b[1], c[0], c[1]),
                           dist2_to_segment(px, py, c[0], c[1], a[0], a[1]))
                e0 = cross(b[0] - a[0], b[1] - a[1], px - a[0], py - a[1])
                e1 = cross(c[0] - b[0], c[1] - b[1], px - b[0], py - b[1])
                e2 = cross(a[0] - c[0], a[1] - c[1], px - c[0], py - c[1])
                inside = (e0 >= 0 and e1 >= 0 and e2 >= 0) or (e0 <= 0 and e1 <= 0 and e2 <= 0)
                if inside:
                    prob[f, i, j] = teml.sigmoid(dist / SIGMA)
                else:
                    prob[f, i, j] = teml.sigmoid(-dist / SIGMA)
