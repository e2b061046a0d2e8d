"""A SIMD loop left to the C compiler reads the indices that do not change in
it once, before it (src/backend/cpu/invariant_index_loads.cpp): GCC leaves
`V[col[k]][f]` in a loop over f scalar, and vectorizes `V[c][f]` with
`c = col[k]` read first. The results are the same, also where the loop does
not run at all (an empty row whose index points past the end)."""
import re

import numpy as np

import teml

R, C, NNZ, F = 9, 7, 30, 19


@teml.transform
def sddmm(ptr: teml.Var[(R + 1,), "int32"], col: teml.Var[(NNZ,), "int32"], U: teml.Var[(R, F), "float32"],
          V: teml.Var[(C, F), "float32"], out: teml.Var[(NNZ,), "float32", "output"]):
    for i in range(R):
        for k in range(ptr[i], ptr[i + 1]):
            for f in range(F):
                out[k] += U[i, f] * V[col[k], f]


@teml.transform
def bag_sums(table: teml.Var[(C, F), "float64"], index: teml.Var[(R, 3), "int64"],
             y: teml.Var[(R, F), "float64", "output"]):
    for b in range(R):
        for l in range(3):
            for d in range(F):
                y[b, d] += table[index[b, l], d]


@teml.transform
def ragged_rows(cnt: teml.Var[(R,), "int32"], first: teml.Var[(R,), "int32"], col: teml.Var[(NNZ,), "int32"],
                V: teml.Var[(C, F), "float32"], y: teml.Var[(R, F), "float32", "output"]):
    for i in range(R):
        for f in range(cnt[i]):
            y[i, f] = V[col[first[i]], f]


def csr(rng):
    ptr = np.sort(rng.integers(0, NNZ + 1, R + 1)).astype(np.int32)
    ptr[0], ptr[-1] = 0, NNZ
    ptr[3] = ptr[4]  # an empty row
    return ptr, rng.integers(0, C, NNZ).astype(np.int32)


def test_sddmm_reads_each_rows_index_before_its_vector_loop():
    rng = np.random.default_rng(3)
    ptr, col = csr(rng)
    U = rng.standard_normal((R, F)).astype(np.float32)
    V = rng.standard_normal((C, F)).astype(np.float32)
    row = np.repeat(np.arange(R), np.diff(ptr))
    np.testing.assert_allclose(sddmm(ptr, col, U, V), np.einsum("kf,kf->k", U[row], V[col]), rtol=1e-5)
    code = sddmm.c_source(ptr, col, U, V)
    assert "= (int64_t)(col[k]);" in code  # read once, before the loop over f
    assert "V[((int64_t)(col[k]))][f]" not in code


def test_embedding_bag_sums_gather_whole_rows():
    rng = np.random.default_rng(4)
    table = rng.standard_normal((C, F))
    index = rng.integers(0, C, (R, 3))
    np.testing.assert_allclose(bag_sums(table, index), table[index].sum(axis=1))


def test_a_row_that_does_not_run_reads_no_index():
    rng = np.random.default_rng(5)
    cnt = rng.integers(0, F + 1, R).astype(np.int32)
    cnt[[2, 5]] = 0
    first = rng.integers(0, NNZ, R).astype(np.int32)
    first[[2, 5]] = NNZ  # past the end of col: rows that are empty never read it
    col = rng.integers(0, C, NNZ).astype(np.int32)
    V = rng.standard_normal((C, F)).astype(np.float32)
    y = ragged_rows(cnt, first, col, V)
    for i in range(R):
        if cnt[i]:
            np.testing.assert_array_equal(y[i, :cnt[i]], V[col[first[i]], :cnt[i]])
        np.testing.assert_array_equal(y[i, cnt[i]:], 0)
    assert "0 < ((int64_t)(cnt[i])) ? (int64_t)(col[((int64_t)(first[i]))]) : 0;" in ragged_rows.c_source(cnt, first, col, V)


@teml.transform
def chosen_gather(flag: teml.Var[(R,), "int32"], idx: teml.Var[(R,), "int32"], other: teml.Var[(R,), "int32"],
                  V: teml.Var[(C, F), "float32"], y: teml.Var[(R,), "float32", "output"]):
    for i in range(R):
        for f in range(F):
            y[i] += V[idx[i] if flag[i] > 0 else other[i], f]


def test_an_index_a_select_chooses_is_read_where_it_is_chosen():
    # A select evaluates only the operand it chooses (one may be an index its condition
    # guards): neither index is read before the loop.
    rng = np.random.default_rng(6)
    flag = rng.integers(0, 2, R).astype(np.int32)
    idx, other = (rng.integers(0, C, R).astype(np.int32) for _ in range(2))
    V = rng.standard_normal((C, F)).astype(np.float32)
    np.testing.assert_allclose(chosen_gather(flag, idx, other, V), V[np.where(flag > 0, idx, other)].sum(axis=1),
                               rtol=1e-5)
    code = chosen_gather.c_source(flag, idx, other, V)
    assert "#pragma omp simd reduction(+:y_acc)" in code  # a loop left to the C compiler
    assert not re.search(r"const int64_t index\w* = [^;]*(idx|other)\[", code), code
