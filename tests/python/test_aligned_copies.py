"""An input the program reads many times from the caches, passed off a
64-byte boundary (NumPy aligns to 16), is copied to one first: its vector
loads would otherwise cross a cache line every other time (docs/python.md,
"Arrays off a cache line"). Inputs read once, large ones and aligned ones
are passed as they are, and so is every input on a core that runs 64-byte
vectors as two 32-byte halves (Zen 4), where the split loads cost nothing."""
from __future__ import annotations

import numpy as np

import teml
from teml import _transform
from wide_vectors import result_on as wide_vectors_result_on

N = 64


@teml.transform
def product(A: teml.Var[(N, N), "float32"], B: teml.Var[(N, N), "float32"], C: teml.Var[(N, N), "float32", "output"]):
    for i in range(N):
        for j in range(N):
            for k in range(N):
                C[i, j] += A[i, k] * B[k, j]


@teml.transform
def total(x: teml.Var[(N, N), "float32"], s: teml.Var[(), "float32", "output"]):
    for i in range(N):
        for j in range(N):
            s[()] += x[i, j]


def off_a_line(a, by=16):
    """`a`'s values in an array that starts `by` bytes past a 64-byte boundary."""
    raw = np.empty(a.nbytes + 128, np.uint8)
    start = -raw.ctypes.data % 64 + by
    out = raw[start:start + a.nbytes].view(a.dtype).reshape(a.shape)
    out[...] = a
    return out


def copies_made(monkeypatch):
    made = []
    real = _transform._aligned_copy

    def counting(a):
        made.append(a.ctypes.data)
        return real(a)

    monkeypatch.setattr(_transform, "_aligned_copy", counting)
    return made


def copies_on(tmp_path, wide_vectors):
    """What product_copies (below) finds in a process whose machine has
    64-byte vectors, run whole (TEML_WIDE_VECTORS=whole) or as halves."""
    return wide_vectors_result_on(tmp_path, "test_aligned_copies", "product_copies", wide_vectors)


def product_copies():
    """The inputs `product` copies, off a line and on one, its results checked."""
    made = []
    real = _transform._aligned_copy
    _transform._aligned_copy = lambda a: (made.append(a.ctypes.data), real(a))[1]
    rng = np.random.default_rng(0)
    A, B = (rng.integers(-8, 8, (N, N)).astype(np.float32) for _ in range(2))
    misaligned = [off_a_line(A), off_a_line(B)]
    np.testing.assert_array_equal(product(*misaligned), A @ B)  # small integers: every order sums exactly
    off = dict(named=sorted(product._last.aligned_copies()), copied=made == [m.ctypes.data for m in misaligned],
               none=made == [])
    made.clear()
    np.testing.assert_array_equal(product(off_a_line(A, 0), off_a_line(B, 0)), A @ B)
    return dict(off_a_line=off, on_a_line_none=made == [])


def test_inputs_read_many_times_are_copied_to_a_line_boundary(tmp_path):
    found = copies_on(tmp_path, "whole")
    assert found["off_a_line"]["named"] == ["A", "B"]  # each element read 64 times
    assert found["off_a_line"]["copied"]
    assert found["on_a_line_none"]  # already on a boundary


def test_a_core_that_halves_wide_vectors_gets_no_copies(tmp_path):
    found = copies_on(tmp_path, "halved")
    assert found["off_a_line"]["named"] == [] and found["off_a_line"]["none"]


def test_inputs_read_once_are_passed_as_they_are(monkeypatch):
    made = copies_made(monkeypatch)
    x = np.random.default_rng(1).integers(-8, 8, (N, N)).astype(np.float32)
    assert total(off_a_line(x)) == x.sum()
    assert total._last.aligned_copies() == set() and made == []


@teml.transform
def bag_sums(table: teml.Var[(N, N), "float32"], rows: teml.Var[(N, 8), "int64"],
             y: teml.Var[(N, N), "float32", "output"]):
    for b in range(N):
        for l in range(8):
            for d in range(N):
                y[b, d] += table[rows[b, l], d]


def test_index_arrays_read_only_in_subscripts_are_passed_as_they_are(monkeypatch):
    made = copies_made(monkeypatch)
    rng = np.random.default_rng(2)
    table = rng.integers(-8, 8, (N, N)).astype(np.float32)
    rows = rng.integers(0, N, (N, 8))
    # each row number is read once per bag, not once per element of the row it picks
    passed = off_a_line(rows)
    np.testing.assert_array_equal(bag_sums(table, passed), table[rows].sum(axis=1))
    assert "rows" not in bag_sums._last.aligned_copies()
    assert passed.ctypes.data not in made


NNZ = 16 * N


@teml.transform
def spmv(ptr: teml.Var[(N + 1,), "int32"], col: teml.Var[(NNZ,), "int32"], val: teml.Var[(NNZ,), "float32"],
         x: teml.Var[(N,), "float32"], y: teml.Var[(N,), "float32", "output"]):
    for i in range(N):
        for k in range(ptr[i], ptr[i + 1]):
            y[i] += val[k] * x[col[k]]


def test_tensors_read_only_at_indices_from_data_are_passed_as_they_are(monkeypatch):
    made = copies_made(monkeypatch)
    rng = np.random.default_rng(3)
    ptr = np.arange(0, NNZ + 1, 16, dtype=np.int32)
    col = rng.integers(0, N, NNZ).astype(np.int32)
    val = rng.integers(-8, 8, NNZ).astype(np.float32)
    x = rng.integers(-8, 8, N).astype(np.float32)
    # x[col[k]]: each element of x is read 16 times, one element at a time (no vector loads it)
    passed = off_a_line(x)
    want = (val * x[col]).reshape(N, 16).sum(axis=1)
    np.testing.assert_array_equal(spmv(ptr, col, val, passed), want)
    assert spmv._last.aligned_copies() == set()
    assert passed.ctypes.data not in made
