"""SoftRas's soft rasterizer (FreeTensor, Section 6.1): every pixel against
every face. The probability that face f covers pixel p is
sigmoid(+-d^2 / sigma), d the distance from p to the triangle's border
(+ inside, - outside); the silhouette is 1 - prod_f (1 - probability).
The distance to each edge is a point-to-segment distance with a branch for
each of its three cases."""
from __future__ import annotations  # size names in annotations need not exist in Python

import teml

SIGMA = 1e-4
H = 64
W = 64


def cross(ax, ay, bx, by):
    return ax * by - ay * bx


def segment_distance2(d, px, py, ax, ay, bx, by):
    """d[()] = the squared distance from p to the segment a-b."""
    dx = bx - ax
    dy = by - ay
    t = ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)
    if t < 0:
        d[()] = min(d, (px - ax) * (px - ax) + (py - ay) * (py - ay))
    elif t > 1:
        d[()] = min(d, (px - bx) * (px - bx) + (py - by) * (py - by))
    else:
        d[()] = min(d, (px - ax - t * dx) * (px - ax - t * dx) + (py - ay - t * dy) * (py - ay - t * dy))


@teml.transform
def soft_rasterize(faces: teml.Var[(n_faces, 3, 2), "float32"],
                   image: teml.Var[(H, W), "float32", "output"]):
    #! label: Lrow
    for i in range(H):
        #! label: Lcol
        for j in range(W):
            py = teml.full((), 1 - (2 * i + 1) / H, "float32")
            px = teml.full((), (2 * j + 1) / W - 1, "float32")
            uncovered = teml.ones((), "float32")
            #! label: Lface
            for f in range(n_faces):
                a = faces[f, 0]
                b = faces[f, 1]
                c = faces[f, 2]
                d = teml.full((), float("inf"), "float32")
                segment_distance2(d, px, py, a[0], a[1], b[0], b[1])
                segment_distance2(d, px, py, b[0], b[1], c[0], c[1])
                segment_distance2(d, px, py, c[0], c[1], a[0], a[1])
                e0 = cross(b[0] - a[0], b[1] - a[1], px - a[0], py - a[1])
                e1 = cross(c[0] - b[0], c[1] - b[1], px - b[0], py - b[1])
                e2 = cross(a[0] - c[0], a[1] - c[1], px - c[0], py - c[1])
                inside = (e0 >= 0 and e1 >= 0 and e2 >= 0) or (e0 <= 0 and e1 <= 0 and e2 <= 0)
                uncovered[()] *= 1 - teml.sigmoid((d if inside else -d) / SIGMA)
            image[i, j] = 1 - uncovered


@teml.schedule(soft_rasterize)
def schedule(s):
    s.parallelize("Lrow")
