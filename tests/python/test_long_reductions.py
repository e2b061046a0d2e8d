"""Reductions along a long loop in SIMD lanes: max and min as C's fmax and
fmin (a NaN loses, as the interpreter's), vectorized; sums, maxima and minima
of at least 16 vectors in independent partial results (src/backend/cpu/nest_emitter_partial_sums.cpp),
with trip counts that whole blocks do not divide, other statements in the
loop, and a sum that starts from the output's value."""
import numpy as np
import pytest

import teml
from wide_vectors import result_on as wide_vectors_result_on


@teml.transform
def row_max_min(x: teml.Var[(5, 1037), "float32"], top: teml.Var[(5,), "float32", "output"],
                bottom: teml.Var[(5,), "float32", "output"]):
    for i in range(5):
        top[i] = x[i, 0]
        bottom[i] = x[i, 0]
        for j in range(1037):
            top[i] = max(top[i], x[i, j])
            bottom[i] = min(bottom[i], x[i, j])


@teml.transform
def softmax_rows(x: teml.Var[(3, 1000), "float32"], y: teml.Var[(3, 1000), "float32", "output"]):
    for i in range(3):
        m = teml.empty((), "float32")
        m[()] = x[i, 0]
        for j in range(1000):
            m[()] = max(m[()], x[i, j])
        s = teml.empty((), "float32")
        s[()] = 0.0
        for j in range(1000):
            y[i, j] = teml.exp(x[i, j] - m[()])
            s[()] += y[i, j]
        for j in range(1000):
            y[i, j] = y[i, j] / s[()]


@teml.transform
def dots_added(a: teml.Var[(4, 2053), "float64"], b: teml.Var[(2053,), "float64"], y: teml.Var[(4,), "float64", "inout"]):
    for i in range(4):
        for k in range(2053):
            y[i] += a[i, k] * b[k]


@teml.transform
def int_sums(a: teml.Var[(3, 4099), "int32"], y: teml.Var[(3,), "int32", "output"]):
    for i in range(3):
        y[i] = 0
        for k in range(4099):
            y[i] += a[i, k]


def test_max_and_min_skip_nans_wherever_they_are():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((5, 1037)).astype(np.float32)
    x[0, 0] = np.nan  # the start value
    x[1, 500] = np.nan
    x[2, 1036] = np.nan  # in the last, partial vector
    x[3, :] = np.nan
    top, bottom = row_max_min(x)
    np.testing.assert_array_equal(top, np.fmax.reduce(x, axis=1))
    np.testing.assert_array_equal(bottom, np.fmin.reduce(x, axis=1))


@pytest.mark.parametrize("shift", [0, 1, 5, 15])
def test_maxima_in_partial_results_are_those_of_every_element_wherever_the_rows_start(shift):
    # Each partial maximum starts from NaN, fmax's identity: a row of NaN but
    # one element, infinities, and extremes in the first, the blocks' and the
    # last iterations all come out as NumPy's fmax and fmin over the row.
    rng = np.random.default_rng(5)
    store = np.empty(5 * 1037 + 16, np.float32)
    x = store[shift:shift + 5 * 1037].reshape(5, 1037)
    x[...] = rng.standard_normal((5, 1037))
    x[0, 3], x[0, 700] = np.inf, -np.inf
    x[1, :] = np.nan
    x[1, 333] = -2.5
    x[2, 1036], x[2, 0] = 1e30, -1e30
    x[3, 64:128] = np.nan
    x[4, :] = -np.inf
    top, bottom = row_max_min(x)
    np.testing.assert_array_equal(top, np.fmax.reduce(x, axis=1))
    np.testing.assert_array_equal(bottom, np.fmin.reduce(x, axis=1))
    c = row_max_min.c_source(x)
    assert "top_acc_part[j_lane] = NAN;" in c and "bottom_acc_part[j_lane] = NAN;" in c


def test_softmax_over_long_rows():
    x = np.random.default_rng(1).standard_normal((3, 1000)).astype(np.float32) * 4
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(softmax_rows(x), e / e.sum(axis=1, keepdims=True), rtol=2e-5, atol=1e-9)


def test_long_dot_products_add_to_the_value_they_start_from():
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((4, 2053)), rng.standard_normal(2053)
    y = np.arange(4, dtype=np.float64) * 100
    expected = y + a @ b
    dots_added(a, b, y)
    np.testing.assert_allclose(y, expected, rtol=1e-12, atol=1e-10)


def test_integer_sums_are_exact():
    a = np.random.default_rng(3).integers(-1000, 1000, (3, 4099)).astype(np.int32)
    np.testing.assert_array_equal(int_sums(a), a.sum(axis=1))


def test_the_long_sum_runs_in_partial_sums_and_max_in_selects():
    x = np.zeros((3, 1000), np.float32)
    c = softmax_rows.c_source(x)
    with open("/proc/cpuinfo") as f:  # teml's vectors: 16 floats with AVX-512, else 8 (src/target/target.cpp)
        lanes = 16 if "avx512f" in next(line for line in f if line.startswith("flags")).split() else 8
    assert f"_part[{4 * lanes}]" in c  # four vectors of partial sums
    assert "fmaxf(" not in c.replace("teml_fmaxf(", "")


@teml.transform
def dots_f32(a: teml.Var[(5, 1001), "float32"], b: teml.Var[(1001,), "float32"], y: teml.Var[(5,), "float32", "output"]):
    for i in range(5):
        for k in range(1001):
            y[i] += a[i, k] * b[k]


@pytest.mark.parametrize("shift", [0, 1, 3, 4, 7, 12, 15])
def test_partial_sums_start_on_a_vector_boundary_wherever_the_arrays_start(shift):
    # The blocks begin where `a`'s row starts a vector on a line's edge; the
    # iterations before run one by one (each row of 1001 floats starts
    # elsewhere, and `shift` moves the whole array): every element still
    # counts exactly once. Integers in the floats, so the sums are exact.
    rng = np.random.default_rng(4)
    store = np.empty(5 * 1001 + 16, np.float32)
    a = store[shift:shift + 5 * 1001].reshape(5, 1001)
    a[...] = rng.integers(-8, 8, (5, 1001))
    b = rng.integers(-8, 8, 1001).astype(np.float32)
    np.testing.assert_array_equal(dots_f32(a, b), a @ b)
    assert "(uintptr_t)&a[i]" in dots_f32.c_source(a, b)


@teml.transform
def row_sums(a: teml.Var[(5, 1001), "float32"], y: teml.Var[(5,), "float32", "output"]):
    for i in range(5):
        for k in range(1001):
            y[i] += a[i, k]


def row_sums_start():
    """Whether row_sums' partial sums wait for a line's edge, and its sums of
    integers (exact in any order) on arrays starting anywhere are right."""
    rng = np.random.default_rng(5)
    store = np.empty(5 * 1001 + 16, np.float32)
    for shift in (0, 3, 4, 13):
        a = store[shift:shift + 5 * 1001].reshape(5, 1001)
        a[...] = rng.integers(-8, 8, (5, 1001))
        np.testing.assert_array_equal(row_sums(a), a.sum(axis=1))
    return "(uintptr_t)&a[i]" in row_sums.c_source(a)


def row_sums_start_on(tmp_path, wide_vectors):
    """row_sums_start in a process whose machine has 64-byte vectors, run
    whole (TEML_WIDE_VECTORS=whole) or as two halves (halved)."""
    return wide_vectors_result_on(tmp_path, "test_long_reductions", "row_sums_start", wide_vectors)


def test_one_stream_waits_for_a_line_edge_where_misaligned_loads_cost(tmp_path):
    assert row_sums_start_on(tmp_path, "whole")


def test_one_stream_starts_at_once_on_a_core_that_halves_wide_vectors(tmp_path):
    # There a load off the edge costs no more; the iterations before the
    # edge only cost. A loop of two streams still waits (dots_f32 above).
    assert not row_sums_start_on(tmp_path, "halved")
