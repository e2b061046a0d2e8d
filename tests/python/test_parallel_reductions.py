"""Reductions under parallel loops from Python: exact on any thread count, in
the reduction's own type, and shown by lowered_ir() (docs/lowering.md)."""
from __future__ import annotations

import pathlib
import sys

import numpy as np

import teml

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import kernels  # noqa: E402


def test_int64_column_sums_over_threads_are_exact_beyond_two_to_the_53():
    def schedule(s):
        s.parallelize("Lr")
        s.vectorize("Lc")

    sums = teml.transform(kernels.column_sums, schedule=schedule)
    x = np.full((1000, 16), 2**53 + 1, dtype=np.int64)
    x[::2] = 1
    want = x.sum(0)  # exact: 500 * (2**53 + 1) + 500 stays below 2**63
    for threads in (2, 4):
        sums.threads = threads
        for _ in range(5):
            assert np.array_equal(sums(x), want)
    lowered = sums.lowered_ir(x)
    assert "var y_acc : int64[16] stack" in lowered
    assert "parallel reduction(+= y_acc of y)" in lowered


@teml.transform
def scatter_add(x: teml.Var[(E, 8), "int64"], index: teml.Var[(E,), "int64"],
                y: teml.Var[(R, 8), "int64", "inout"]):
    for e in range(E):
        for d in range(8):
            y[index[e], d] += x[e, d]


def test_private_copies_kept_between_calls_start_from_zero_each_call():
    # Each thread but the first adds into a copy of y of its own, kept for the
    # next call (teml_private_copy): every call must start it from zero, and a
    # larger y must get a larger copy, on two threads and on three.
    rng = np.random.default_rng(7)
    for threads, rows in ((2, 50_000), (2, 50_000), (3, 80_000), (2, 50_000), (3, 50_000)):
        scatter_add.threads = threads
        x = rng.integers(-1000, 1000, (200_000, 8))
        index = rng.integers(0, rows, 200_000)
        y = np.zeros((rows, 8), np.int64)
        scatter_add(x, index, y)
        want = np.zeros((rows, 8), np.int64)
        np.add.at(want, index, x)
        assert np.array_equal(y, want)
    assert "teml_private_copy(" in scatter_add.c_source(x, index, y)
