"""An output whose first nest only sums into it, each element in one place,
is set to zero by the kernel just before each element's first sum
(lowering/reduction_init.hpp): the sums start at zero without loading it,
and an `out=` array for it is not zeroed by the caller. Elsewhere the caller
zeroes it, as before. Either way the results are what a fresh output gives,
whatever the array held (NaN here: a missed element shows)."""
from __future__ import annotations  # size names in annotations need not exist in Python

import numpy as np
import pytest

import teml

B, L, V, D = 10, 3, 7, 24


def bag_sums(table: teml.Var[(V, D), "float32"], index: teml.Var[(B, L), "int64"],
             y: teml.Var[(B, D), "float32", "output"]):
    for b in range(B):
        for l in range(L):
            for d in range(D):
                y[b, d] += table[index[b, l], d]


# As written (the row loop inside the bag: its zeros in a loop of their own
# before the bag) and as the automatic schedule leaves it.
bag_as_written = teml.transform(auto=False)(bag_sums)
bag_scheduled = teml.transform(bag_sums)


@teml.transform
def two_rows(x: teml.Var[(B, D), "float32"], y: teml.Var[(2, D), "float32", "output"]):
    # every row of x adds into one of two rows: an element summed in several places
    for b in range(B):
        for d in range(D):
            y[b % 2, d] += x[b, d]


@teml.transform
def masked_sums(x: teml.Var[(B, D), "float32"], keep: teml.Var[(B, D), "int32"],
                y: teml.Var[(B,), "float32", "output"]):
    for b in range(B):
        for d in range(D):
            if keep[b, d] > 0:
                y[b] += x[b, d]


def whole(shape, seed):
    return np.random.default_rng(seed).integers(-8, 8, shape).astype(np.float32)


@pytest.mark.parametrize("f", [bag_as_written, bag_scheduled], ids=["as_written", "scheduled"])
def test_an_embedding_bag_sets_its_sums_to_zero_itself(f):
    table, index = whole((V, D), 0), np.random.default_rng(1).integers(0, V, (B, L))
    reused = np.full((B, D), np.nan, np.float32)
    assert f(table, index, out=reused) is reused
    np.testing.assert_array_equal(reused, table[index].sum(axis=1))
    assert "y" in f._last.written_before_read()
    assert "y[b][d] = 0.0f;" in f._last.c_source()


def test_an_element_summed_in_several_places_is_zeroed_by_the_caller():
    x = whole((B, D), 2)
    reused = np.full((2, D), np.nan, np.float32)
    two_rows(x, out=reused)
    np.testing.assert_array_equal(reused, np.stack([x[0::2].sum(axis=0), x[1::2].sum(axis=0)]))
    assert "y" not in two_rows._last.written_before_read()


def test_sums_under_a_branch_start_at_zero_where_no_term_is_kept():
    x, keep = whole((B, D), 3), np.random.default_rng(4).integers(0, 2, (B, D)).astype(np.int32)
    keep[0] = 0  # a row without a single term
    reused = np.full(B, np.nan, np.float32)
    masked_sums(x, keep, out=reused)
    np.testing.assert_array_equal(reused, (x * keep).sum(axis=1))


R, C, NNZ, F = 300, 40, 1900, 16  # 300 rows in blocks of 64: a last block of 44


def csr_rows(ptr: teml.Var[(R + 1,), "int32"], col: teml.Var[(NNZ,), "int32"], val: teml.Var[(NNZ,), "float32"],
             b: teml.Var[(C, F), "float32"], y: teml.Var[(R, F), "float32", "output"]):
    #! label: Li
    for i in range(R):
        for k in range(ptr[i], ptr[i + 1]):
            for f in range(F):
                y[i, f] += val[k] * b[col[k], f]


def rows_in_blocks(s):
    outer, inner = s.split("Li", 64)
    s.parallelize(outer)


def csr(seed):
    rng = np.random.default_rng(seed)
    ptr = np.concatenate([[0], np.sort(rng.integers(0, NNZ, R - 1)), [NNZ]]).astype(np.int32)
    ptr[R // 2] = ptr[R // 2 - 1]  # an empty row: its sums stay zero
    return ptr, rng.integers(0, C, NNZ).astype(np.int32), whole(NNZ, seed + 1), whole((C, F), seed + 2)


def product(ptr, col, val, b):
    y = np.zeros((R, F), np.float32)
    for i in range(R):
        y[i] = val[ptr[i]:ptr[i + 1]] @ b[col[ptr[i]:ptr[i + 1]]]
    return y


@pytest.mark.parametrize("schedule", [rows_in_blocks, None], ids=["rows_in_blocks", "automatic"])
def test_csr_rows_in_blocks_that_do_not_divide_them_set_their_sums_to_zero_themselves(schedule):
    # The last block's loop is clamped at R (min(64 * o + 64, 300)): it cuts
    # only rows past y's end, and the row loop sits inside a run-time check
    # of the row's bounds, which the zeros go inside.
    f = teml.transform(csr_rows, schedule=schedule) if schedule else teml.transform(csr_rows)
    ptr, col, val, b = csr(5)
    reused = np.full((R, F), np.nan, np.float32)
    f(ptr, col, val, b, out=reused)
    np.testing.assert_array_equal(reused, product(ptr, col, val, b))
    assert "y" in f._last.written_before_read()


def rows_but_the_last_three(x: teml.Var[(R, F), "float32"], y: teml.Var[(R, F), "float32", "output"]):
    #! label: Li
    for i in range(R - 3):
        for f in range(F):
            y[i, f] += x[i, f] * 2


def test_a_clamp_that_cuts_rows_inside_the_output_leaves_the_zeros_to_the_caller():
    # min(64 * o + 64, 297): rows 297-299 are never summed, so the kernel
    # does not set them, and the caller zeroes the array.
    f = teml.transform(rows_but_the_last_three, schedule=rows_in_blocks)
    x = whole((R, F), 6)
    reused = np.full((R, F), np.nan, np.float32)
    f(x, out=reused)
    want = x * 2
    want[R - 3:] = 0
    np.testing.assert_array_equal(reused, want)
    assert "y" not in f._last.written_before_read()


def conv1d(x: teml.Var[(CI, LEN), "float32"], w: teml.Var[(CO, CI, K), "float32"],
           y: teml.Var[(CO, LEN - K + 1), "float32", "output"]):
    for o in range(CO):
        for t in range(LEN - K + 1):
            for c in range(CI):
                for k in range(K):
                    y[o, t] += w[o, c, k] * x[c, t + k]


@pytest.mark.parametrize("co, length", [(3, 90), (8, 64), (20, 133)])
def test_a_convolution_in_register_blocks_and_a_remainder_sets_its_sums_to_zero_itself(co, length):
    # The automatic schedule blocks the output's rows and columns in
    # registers, with a last block of columns in a loop that runs once: its
    # zeros are proven to cover what the main blocks leave.
    f = teml.transform(conv1d)
    x, w = whole((4, length), 6), whole((co, 4, 5), 7)
    reused = np.full((co, length - 4), np.nan, np.float32)
    f(x, w, out=reused)
    want = np.stack([sum(w[o, c, k] * x[c, k:k + length - 4] for c in range(4) for k in range(5)) for o in range(co)])
    np.testing.assert_array_equal(reused, want)
    assert "y" in f._last.written_before_read()
