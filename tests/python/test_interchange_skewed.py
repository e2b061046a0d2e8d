"""interchange_skewed (docs/transformations.md): the inner loop of a pair
whose bounds move with the outer iterator goes outside and the outer one's
bounds are solved for it, so that every iteration runs once: a recurrence
skewed into wavefronts whose rows then run on threads, a token's window
skewed so that each row of the window is visited once for all tokens,
triangles and steeper slopes, for PyTorch callers and through teml.grad.
Refused where the new order would break a dependence, and where the
bounds do not move. Integer data: every order sums exactly."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import teml


def recurrence(a: teml.Var[(N, M), "int64", "inout"]):
    #! label: Li
    for i in range(1, N):
        #! label: Lj
        for j in range(1, M):
            a[i, j] = (a[i - 1, j] + a[i, j - 1] + a[i - 1, j - 1]) % 1009


def wavefronts(s):
    s.skew("Li", "Lj", 1)  # j + i: a wavefront's cells share it
    s.interchange_skewed("Li", "Lj")
    s.parallelize("Li")  # the cells of one wavefront do not depend on each other


def recurrence_expected(a):
    a = a.copy()
    for i in range(1, a.shape[0]):
        for j in range(1, a.shape[1]):
            a[i, j] = (a[i - 1, j] + a[i, j - 1] + a[i - 1, j - 1]) % 1009
    return a


@pytest.mark.parametrize("shape", [(2, 2), (5, 17), (23, 4), (40, 40)])
def test_a_recurrence_runs_in_wavefronts_on_threads(shape):
    f = teml.transform(recurrence, schedule=wavefronts)
    a = np.random.default_rng(sum(shape)).integers(0, 5, shape)
    expected = recurrence_expected(a)
    f(a)
    np.testing.assert_array_equal(a, expected)
    assert "omp parallel for" in f.c_source(a)


W = 3


def windows(x: teml.Var[(T + 2 * W,), "int64"], y: teml.Var[(T, 2 * W + 1), "int64", "output"]):
    #! label: Ltoken
    for j in range(T):
        #! label: Lwindow
        for t in range(-W, W + 1):
            y[j, t + W] = x[j + t + W] * (t + 5) + j


def rows_once_for_all_tokens(s):
    s.skew("Ltoken", "Lwindow", 1)  # the row j + t that token j reads
    s.interchange_skewed("Ltoken", "Lwindow")


@pytest.mark.parametrize("tokens", [1, 2, 9])
def test_a_window_visits_each_row_once_for_all_tokens(tokens):
    x = np.random.default_rng(tokens).integers(-9, 9, tokens + 2 * W)
    y = teml.transform(windows, schedule=rows_once_for_all_tokens)(x)
    np.testing.assert_array_equal(y, teml.transform(windows)(x))
    assert y.shape == (tokens, 2 * W + 1)


def slopes(a: teml.Var[(N,), "int64"], y: teml.Var[(N, N), "int64", "output"],
           z: teml.Var[(N, 3 * N + 5), "int64", "output"]):
    #! label: Lo
    for i in range(N):
        #! label: Ld
        for j in range(N - i):  # a triangle: the upper bound falls with i
            y[i, j] += a[i] * (j + 1)
    #! label: Lo2
    for i in range(N):
        #! label: Ls
        for j in range(2 * i, 3 * i + 5):  # both bounds rise, at different slopes
            z[i, j] += a[i] - j


def interchange_both(s):
    s.interchange_skewed("Lo", "Ld")
    s.interchange_skewed("Lo2", "Ls")


@pytest.mark.parametrize("n", [1, 2, 7, 16])
def test_triangles_and_slopes_keep_every_iteration(n):
    a = np.random.default_rng(n).integers(-9, 9, n)
    for scheduled, written in zip(teml.transform(slopes, schedule=interchange_both)(a), teml.transform(slopes)(a)):
        np.testing.assert_array_equal(scheduled, written)


def against_the_diagonal(a: teml.Var[(N, N), "int64", "inout"]):
    #! label: Li
    for i in range(1, N):
        #! label: Lj
        for j in range(i, N - 1):
            a[i, j] = a[i - 1, j + 1] + 1  # row i reads what row i - 1 wrote one column right


def test_an_order_that_breaks_a_dependence_is_refused():
    f = teml.transform(against_the_diagonal, schedule=lambda s: s.interchange_skewed("Li", "Lj"))
    with pytest.raises(teml.ProgramError, match=r"interchange_skewed would reverse the dependence \(i, j\) -> \(i \+ 1, j - 1\) on .a."):
        f(np.zeros((6, 6), np.int64))


def test_bounds_that_do_not_move_are_for_interchange():
    f = teml.transform(recurrence, schedule=lambda s: s.interchange_skewed("Li", "Lj"))
    with pytest.raises(teml.ProgramError, match="do not move with 'i'; use interchange"):
        f(np.zeros((4, 4), np.int64))


def windows_f64(x: teml.Var[(T + 2 * W,), "float64"], y: teml.Var[(T, 2 * W + 1), "float64", "output"]):
    #! label: Ltoken
    for j in range(T):
        #! label: Lwindow
        for t in range(-W, W + 1):
            y[j, t + W] = x[j + t + W] * (t + 5) + j


def test_pytorch_callers_and_the_gradient_get_the_written_programs():
    x = np.random.default_rng(3).standard_normal(9 + 2 * W)
    scheduled = teml.transform(windows_f64, schedule=rows_once_for_all_tokens)
    np.testing.assert_array_equal(scheduled(torch.from_numpy(x)).numpy(), teml.transform(windows_f64)(x))
    weight = np.random.default_rng(4).standard_normal((9, 2 * W + 1))
    gradients = []
    for schedule in (rows_once_for_all_tokens, None):
        forward, backward = teml.grad(teml.transform(windows_f64, schedule=schedule, auto=schedule is None))
        forward(x)
        gradients.append(backward(weight)[0])
    np.testing.assert_allclose(gradients[0], gradients[1], rtol=1e-12)
