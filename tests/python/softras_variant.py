"""Issue 43, item 2: a SoftRas variant written apart from the project's
spelling (examples/freetensor/as_written/softras.py), as the issue describes
it, and the smallest program with the same parts (`reduced`). Read by
test_softras_variant_gradients.py, from Python and by `teml grad`."""
from __future__ import annotations  # size names in annotations need not exist in Python

import teml

SIGMA = 0.05


def cross(ax, ay, bx, by):
    return ax * by - ay * bx


def edge_distance(px, py, ax, ay, bx, by):
    d = teml.empty((), "float32")
    dx = bx - ax
    dy = by - ay
    t = ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)
    if t < 0:
        d[()] = teml.sqrt((px - ax) * (px - ax) + (py - ay) * (py - ay))
    elif t > 1:
        d[()] = teml.sqrt((px - bx) * (px - bx) + (py - by) * (py - by))
    else:
        d[()] = abs(cross(dx, dy, px - ax, py - ay)) / teml.sqrt(dx * dx + dy * dy)
    return d[()]


def rasterize(faces, prob):
    IH = prob.shape[1]
    IW = prob.shape[2]
    for f in range(faces.shape[0]):
        for i in range(IH):
            for j in range(IW):
                px = teml.empty((), "float32")
                py = teml.empty((), "float32")
                px[()] = j / (IH - 1)
                py[()] = i / (IH - 1)
                a = faces[f, 0]
                b = faces[f, 1]
                c = faces[f, 2]
                dist = min(edge_distance(px[()], py[()], a[0], a[1], b[0], b[1]),
                           edge_distance(px[()], py[()], b[0], b[1], c[0], c[1]),
                           edge_distance(px[()], py[()], c[0], c[1], a[0], a[1]))
                inside = cross(b[0] - a[0], b[1] - a[1], px[()] - a[0], py[()] - a[1]) > 0 and \
                    cross(c[0] - b[0], c[1] - b[1], px[()] - b[0], py[()] - b[1]) > 0 and \
                    cross(a[0] - c[0], a[1] - c[1], px[()] - c[0], py[()] - c[1]) > 0
                if inside:
                    prob[f, i, j] = teml.sigmoid(dist / SIGMA)
                else:
                    prob[f, i, j] = teml.sigmoid(-dist / SIGMA)


@teml.transform
def softras_16(faces: teml.Var[(n_faces, 3, 2), "float32"],
               prob: teml.Var[(n_faces, 16, 16), "float32", "output"]):
    rasterize(faces, prob)


@teml.transform
def softras_64(faces: teml.Var[(n_faces, 3, 2), "float32"],
               prob: teml.Var[(n_faces, 64, 64), "float32", "output"]):
    rasterize(faces, prob)


def corner(px, ax, bx):
    d = teml.empty((), "float64")
    if px < ax:
        d[()] = teml.sqrt((px - ax) * (px - ax) + 1.0)
    else:
        d[()] = abs(px - bx)
    return d[()]


@teml.transform
def reduced(v: teml.Var[(3,), "float64"], y: teml.Var[(8,), "float64", "output"]):
    for j in range(8):
        px = teml.empty((), "float64")
        px[()] = j / 7
        dist = min(corner(px[()], v[0], v[1]), corner(px[()], v[1], v[2]))
        inside = px[()] - v[0] > 0 and v[2] - px[()] > 0
        if inside:
            y[j] = teml.sigmoid(dist * 4.0)
        else:
            y[j] = teml.sigmoid(-dist * 4.0)
