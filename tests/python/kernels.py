"""Free-form kernels as a user's Python module defines them (used by test_package.py)."""
from __future__ import annotations

import numpy as np

import teml
from teml import libop

ROWS = 6  # a Python integer in scope: a compile-time size


@teml.transform
def mesh_gather(x: teml.Var[(F, C), "float32"], adj: teml.Var[(F, 3), "int32"],
                y: teml.Var[(F, C), "float32", "output"]):
    for i in range(F):
        s = teml.zeros((C,), "float32")
        for p in range(3):
            s[:] += abs(x[adj[i, p]] - x[i])
        y[i] = s


@teml.transform
def scale_rows(a: teml.Var[(ROWS, n), "float64", "inout"], w: teml.Var[(ROWS,), "float64"],
               total: teml.Var[(), "float64", "output"]):
    #! label: Lr
    for r in range(ROWS):
        a[r] *= w[r]
        total[()] += libop.sum(a[r])


@teml.schedule(scale_rows)
def _schedule(s):
    s.parallelize("Lr")


def numpy_only():
    return np.arange(3)  # plain Python beside the kernels: teml reads only what they need


def prefix_sums(x: teml.Var[(n,), "float64", "inout"]):
    """Undecorated: tests give it a schedule from Python (teml.transform(..., schedule=...))."""
    #! label: Lp
    for i in range(1, n):
        x[i] += x[i - 1]


def row_sums(x: teml.Var[(r, c), "float64"], y: teml.Var[(r,), "float64", "output"]):
    #! label: Lr
    for i in range(r):
        for j in range(c):
            y[i] += x[i, j]


def column_sums(x: teml.Var[(r, c), "int64"], y: teml.Var[(c,), "int64", "output"]):
    """Undecorated: the parallel-reduction tests schedule it from Python."""
    #! label: Lr
    for i in range(r):
        #! label: Lc
        for j in range(c):
            y[j] += x[i, j]
