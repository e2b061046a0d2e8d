"""SoftRas's soft rasterizer (FreeTensor, Section 6.1, as in its
experiment): every face against every pixel. prob[f, i, j] is the
probability that face f covers pixel (i, j): sigmoid(+-d^2 / sigma), d the
distance from the pixel's centre to the triangle's border (+ inside,
- outside). The distance to each edge is a point-to-segment distance."""
from __future__ import annotations  # size names in annotations need not exist in Python

import teml

SIGMA = 1e-4
H = 64
W = 64


def cross(ax, ay, bx, by):
    return ax * by - ay * bx


def segment_distance2(px, py, ax, ay, bx, by):
    """The squared distance from p to the segment a-b: to its point a + t (b - a), t clamped to [0, 1]."""
    dx = bx - ax
    dy = by - ay
    t = min(max(((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy), 0), 1)
    return (px - ax - t * dx) * (px - ax - t * dx) + (py - ay - t * dy) * (py - ay - t * dy)


@teml.transform
def soft_rasterize(faces: teml.Var[(n_faces, 3, 2), "float32"],
                   prob: teml.Var[(n_faces, H, W), "float32", "output"]):
    xs = teml.zeros((W,), "float32")  # pixel centres in [-1, 1], y up
    ys = teml.zeros((H,), "float32")
    for j in range(W):
        xs[j] = (2 * j + 1) / W - 1
    for i in range(H):
        ys[i] = 1 - (2 * i + 1) / H
    #! label: Lface
    for f in range(n_faces):
        a = faces[f, 0]
        b = faces[f, 1]
        c = faces[f, 2]
        #! label: Lrow
        for i in range(H):
            #! label: Lcol
            for j in range(W):
                d0 = segment_distance2(xs[j], ys[i], a[0], a[1], b[0], b[1])
                d1 = segment_distance2(xs[j], ys[i], b[0], b[1], c[0], c[1])
                d2 = segment_distance2(xs[j], ys[i], c[0], c[1], a[0], a[1])
                d = min(d0, d1, d2)
                e0 = cross(b[0] - a[0], b[1] - a[1], xs[j] - a[0], ys[i] - a[1])
                e1 = cross(c[0] - b[0], c[1] - b[1], xs[j] - b[0], ys[i] - b[1])
                e2 = cross(a[0] - c[0], a[1] - c[1], xs[j] - c[0], ys[i] - c[1])
                # inside: the three edge functions share a sign
                inside = min(e0, e1, e2) >= 0 or max(e0, e1, e2) <= 0
                prob[f, i, j] = teml.sigmoid((d if inside else -d) / SIGMA)


@teml.schedule(soft_rasterize)
def schedule(s):
    s.parallelize("Lface")
