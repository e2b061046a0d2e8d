"""A tensor the program defines outside its loops starts at zero. Where the
program stores every element before reading any (analysis/written_before_read,
docs/lowering.md), the generated code does not zero it; everywhere else it
still does, and each call sees zeros where nothing was stored, whatever an
earlier call left in the memory it reuses."""
from __future__ import annotations

import re

import numpy as np

import teml


@teml.transform
def stored_first(x: teml.Var[(N, C), "float64"], y: teml.Var[(N, C), "float64", "output"]):
    h = teml.empty((N, C), "float64")
    for i in range(N):
        for c in range(C):
            h[i, c] = x[i, c] * 2.0
    for i in range(N):
        for c in range(C):
            y[i, c] = h[N - 1 - i, c] + h[i, C - 1 - c]


@teml.transform
def last_row_unstored(x: teml.Var[(N, C), "float64"], y: teml.Var[(N, C), "float64", "output"]):
    h = teml.empty((N, C), "float64")
    for i in range(N - 1):
        for c in range(C):
            h[i, c] = x[i, c] + 1.0
    for i in range(N):
        for c in range(C):
            y[i, c] = h[N - 1 - i, c]


def zeroed(f, x):
    return re.search(r"memset\(h\w*, 0", f.c_source(x)) is not None


def test_a_temporary_stored_whole_first_is_not_zeroed():
    x = np.zeros((300, 64))
    assert not zeroed(stored_first, x)
    assert zeroed(last_row_unstored, x)


def test_every_call_sees_zeros_where_nothing_was_stored():
    rng = np.random.default_rng(3)
    for n in (300, 300, 517, 300):  # 150-260 KiB of h: the allocator hands back what a call freed
        x = rng.standard_normal((n, 64))
        np.testing.assert_array_equal(stored_first(x), 2 * x[::-1] + 2 * x[:, ::-1])
        h = np.vstack([x[:-1] + 1.0, np.zeros((1, 64))])
        np.testing.assert_array_equal(last_row_unstored(x), h[::-1])
