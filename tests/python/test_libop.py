"""teml.libop called directly on NumPy arrays: compiled, NumPy's results."""
import numpy as np
import pytest

import teml

rng = np.random.default_rng(4)
a, b = rng.standard_normal((3, 4)), rng.standard_normal((4, 5))


@pytest.mark.parametrize("got,want", [
    (lambda: teml.libop.matmul(a, b), lambda: a @ b),
    (lambda: teml.libop.add(a, b[:, 0]), lambda: a + b[:, 0]),
    (lambda: teml.libop.softmax(a), lambda: np.exp(a) / np.exp(a).sum(-1, keepdims=True)),
    (lambda: teml.libop.sum(a, axis=0), lambda: a.sum(0)),
    (lambda: teml.libop.max(a, axis=1, keepdims=True), lambda: a.max(1, keepdims=True)),
    (lambda: teml.libop.concat([a, a], axis=1), lambda: np.concatenate([a, a], 1)),
    (lambda: teml.libop.gather(a, np.array([2, 0], np.int32)), lambda: a[[2, 0]]),
    (lambda: teml.libop.transpose(a), lambda: a.T),
    (lambda: teml.libop.reshape(a, (-1, 2)), lambda: a.reshape(-1, 2)),
    (lambda: teml.libop.relu(a), lambda: np.maximum(a, 0)),
])
def test_libop_on_numpy_arrays(got, want):
    np.testing.assert_allclose(got(), want(), rtol=1e-12)


def test_softmax_along_a_middle_axis_with_its_loops_fused():
    # the automatic schedule fuses libop's loops over rows (docs/auto-schedule.md, "fuse intermediates")
    x = np.random.default_rng(3).standard_normal((5, 1000, 7))
    e = np.exp(x - x.max(1, keepdims=True))
    np.testing.assert_allclose(teml.libop.softmax(x, axis=1), e / e.sum(1, keepdims=True), rtol=1e-12)


def test_libop_on_numpy_arrays_runs_the_automatic_schedule():
    # The one-line program returns libop's result (no copy into an output
    # for the schedule to fuse into the product's loops) and is scheduled
    # like any function with no schedule: rows on threads, a vector loop.
    x, y = rng.standard_normal((64, 48)), rng.standard_normal((48, 80))
    np.testing.assert_allclose(teml.libop.matmul(x, y), x @ y, rtol=1e-12)
    (kernel,) = [c for key, c in teml.libop._compiled.items() if key[0] == "matmul" and key[1][0][0] == (64, 48)]
    assert "parallel" in kernel.ir() and "vector" in kernel.ir(), kernel.ir()
    assert "tensor out :" in kernel.ir(), kernel.ir()  # the returned result is the output
