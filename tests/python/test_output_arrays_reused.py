"""`out=` reuses output arrays (docs/python.md, "Memory"): an array is zeroed
first unless the program stores every element before reading it, and either
way the results are what a fresh output gives, whatever the array held."""
import numpy as np

import teml


@teml.transform
def softmax(x: teml.Var[(6, 5), "float64"], y: teml.Var[(6, 5), "float64", "output"]):
    for i in range(6):
        total = teml.zeros((), "float64")
        for j in range(5):
            y[i, j] = teml.exp(x[i, j])
            total[()] += y[i, j]
        for j in range(5):
            y[i, j] = y[i, j] / total[()]


@teml.transform
def row_sums(x: teml.Var[(6, 5), "float64"], y: teml.Var[(6,), "float64", "output"]):
    for i in range(6):
        for j in range(5):
            y[i] += x[i, j]


def test_an_output_stored_before_it_is_read_is_not_zeroed():
    x = np.random.default_rng(1).standard_normal((6, 5))
    want = np.exp(x) / np.exp(x).sum(axis=1, keepdims=True)
    reused = np.full((6, 5), np.nan)
    assert softmax(x, out=reused) is reused
    np.testing.assert_allclose(reused, want, rtol=1e-12)


def test_an_output_summed_into_is_zeroed_first():
    x = np.arange(30.0).reshape(6, 5)
    reused = np.full(6, 1e6)
    row_sums(x, out=reused)
    np.testing.assert_array_equal(reused, x.sum(axis=1))
