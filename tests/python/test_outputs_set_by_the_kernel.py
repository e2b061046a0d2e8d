"""An output whose first nest only sums into it, each element in one place,
is set to zero by the kernel just before each element's first sum
(lowering/reduction_init.hpp): the sums start at zero without loading it,
and an `out=` array for it is not zeroed by the caller. Elsewhere the caller
zeroes it, as before. Either way the results are what a fresh output gives,
whatever the array held (NaN here: a missed element shows)."""
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
