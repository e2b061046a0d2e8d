"""Reductions under parallel loops from Python: exact on any thread count, in
the reduction's own type, and shown by lowered_ir() (docs/lowering.md)."""
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
