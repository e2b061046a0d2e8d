"""Index checks decided once per call (src/lowering/checks_by_range.cpp):
a check that the ranges of the index tensors prove runs as one pass over
those tensors; data out of range sends the call down the checked copy, so
what fails names the same index, tensor and line as before, and an
out-of-range value the program never reads fails nothing."""
import numpy as np
import pytest

import teml


@teml.transform
def spmv(ptr: teml.Var[(9,), "int32"], idx: teml.Var[(20,), "int32"], val: teml.Var[(20,), "float64"],
         x: teml.Var[(6,), "float64"], y: teml.Var[(8,), "float64", "output"]):
    for i in range(8):
        y[i] = 0.0
        for k in range(ptr[i], ptr[i + 1]):
            y[i] += val[k] * x[idx[k]]


@teml.transform
def shifted_gather(idx: teml.Var[(7,), "int32"], x: teml.Var[(10,), "int32"], y: teml.Var[(7, 3), "int32", "output"]):
    for i in range(7):
        for j in range(3):
            y[i, j] = x[idx[i] + j - 1]


def csr(rng, rows=8, cols=6, used=16, size=20):
    ptr = np.sort(rng.integers(0, used + 1, rows + 1)).astype(np.int32)
    ptr[0], ptr[-1] = 0, used
    idx = rng.integers(0, cols, size).astype(np.int32)
    return ptr, idx, rng.standard_normal(size), rng.standard_normal(cols)


def spmv_numpy(ptr, idx, val, x):
    return np.array([sum(val[k] * x[idx[k]] for k in range(ptr[i], ptr[i + 1])) for i in range(len(ptr) - 1)])


def test_indices_in_range_give_the_product():
    rng = np.random.default_rng(1)
    for _ in range(5):
        ptr, idx, val, x = csr(rng)
        y = spmv(ptr, idx, val, x)
        np.testing.assert_allclose(y, spmv_numpy(ptr, idx, val, x))


def test_an_index_out_of_range_where_it_is_read_fails_at_its_line():
    ptr, idx, val, x = csr(np.random.default_rng(2))
    idx[ptr[3]] = 6  # read by row 3 (rows may be empty: pick a read entry)
    row = next(i for i in range(8) if ptr[i] <= ptr[3] < ptr[i + 1])
    assert ptr[row] <= ptr[3] < ptr[row + 1]
    with pytest.raises(teml.ProgramError, match=r"index 6 out of range \[0, 6\) for dimension 0 of 'x'"):
        spmv(ptr, idx, val, x)


def test_an_index_out_of_range_that_is_never_read_fails_nothing():
    ptr, idx, val, x = csr(np.random.default_rng(3))
    idx[17] = -5  # past ptr[8] = 16: no row reads it
    idx[19] = 1000
    y = spmv(ptr, idx, val, x)
    np.testing.assert_allclose(y, spmv_numpy(ptr, idx, val, x))


def test_row_bounds_out_of_range_fail_as_before():
    ptr, idx, val, x = csr(np.random.default_rng(4))
    ptr[8] = 21
    with pytest.raises(teml.ProgramError, match=r"out of range \[0, 20\) for dimension 0 of '(val|idx)'"):
        spmv(ptr, idx, val, x)


def test_offsets_of_loaded_indices_are_checked_at_both_ends():
    x = np.arange(10, dtype=np.int32) * 10
    idx = np.array([1, 2, 3, 4, 5, 6, 8], np.int32)  # idx + j - 1 reaches 0 and 9
    y = shifted_gather(idx, x)
    np.testing.assert_array_equal(y, np.stack([x[idx + j - 1] for j in range(3)], axis=1))
    for bad, shown in ((0, -1), (9, 10)):
        idx[4] = bad
        with pytest.raises(teml.ProgramError, match=rf"index {shown} out of range \[0, 10\) for dimension 0 of 'x'"):
            shifted_gather(idx, x)


def test_the_generated_code_runs_a_copy_without_the_checks_when_the_ranges_allow():
    ptr, idx, val, x = csr(np.random.default_rng(5))
    c = spmv.c_source(ptr, idx, val, x, np.zeros(8))
    # The range folded in the indices' own type (int32 here), compared as int64.
    assert "int32_t idx_lo" in c and "((int64_t)(idx_lo)) >= 0" in c and "((int64_t)(idx_hi)) < 6" in c
    assert c.count("for dimension 0 of 'x'") == 1  # in the checked copy only


@teml.transform
def bags(table: teml.Var[(6, 4), "float32"], index: teml.Var[(3, 2, 5), "int64"],
         y: teml.Var[(3, 4), "float32", "output"]):
    for b in range(3):
        for l in range(2):
            for m in range(5):
                for d in range(4):
                    y[b, d] += table[index[b, l, m], d]


@pytest.mark.parametrize("where", [(0, 0, 0), (0, 1, 4), (2, 0, 3), (2, 1, 4)])
@pytest.mark.parametrize("value", [-1, 6])
def test_a_bad_index_anywhere_in_a_tensor_of_three_dimensions_is_found(where, value):
    # The range of a tensor of two or more dimensions is taken over its last
    # two as one flat row: its first and last elements, and a row's, count too.
    rng = np.random.default_rng(7)
    table = rng.standard_normal((6, 4)).astype(np.float32)
    index = rng.integers(0, 6, (3, 2, 5))
    assert np.allclose(bags(table, index), table[index].sum(axis=(1, 2)), atol=1e-5)
    index[where] = value
    with pytest.raises(teml.ProgramError, match=f"index {value} out of range \\[0, 6\\) for dimension 0 of 'table'"):
        bags(table, index)
    assert "index_lo >= 0" in bags.c_source(table, index)  # decided once per call


BIG = 3 * 65536 + 5  # three chunks of the range pass and five elements more


@teml.transform
def big_gather(idx: teml.Var[(BIG,), "int32"], x: teml.Var[(1000,), "int32"], y: teml.Var[(BIG,), "int32", "output"]):
    for i in range(BIG):
        y[i] = x[idx[i]] * 2


@pytest.mark.parametrize("where", [0, 65535, 65536, 2 * 65536 + 7, BIG - 1])
def test_the_range_pass_in_chunks_on_threads_finds_a_bad_index_in_any_chunk(where):
    # On threads, a large index tensor's range is folded in chunks of 65,536
    # elements, the chunks on threads and their minima and maxima combined.
    big_gather.threads = 2
    rng = np.random.default_rng(8)
    idx = rng.integers(0, 1000, BIG).astype(np.int32)
    x = rng.integers(-100, 100, 1000).astype(np.int32)
    np.testing.assert_array_equal(big_gather(idx, x), x[idx] * 2)
    assert "reduction(min:idx_lo_acc)" in big_gather.c_source(idx, x)
    for bad in (-1, 1000):
        idx[where] = bad
        with pytest.raises(teml.ProgramError, match=f"index {bad} out of range \\[0, 1000\\) for dimension 0 of 'x'"):
            big_gather(idx, x)
