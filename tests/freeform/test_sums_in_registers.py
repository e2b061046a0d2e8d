"""Sums kept in registers (docs/auto-schedule.md, auto_sums_in_registers):
a short feature loop inside a loop that adds into its elements goes
outside it and runs in lanes, the sums jammed around the inner loop, with
data-dependent bounds and gathered rows; and a register block's short last
column block runs as masked vectors (docs/lowering.md,
single_iteration_loops). Each is checked against NumPy and the
interpreter (--verify)."""
import re

import numpy as np

from conftest import EXAMPLES, vector_floats  # noqa: F401  (the conftest's TEML)

BAG = '''import teml


@teml.transform
def bag(table: teml.Var[(300, 40), "float32"], index: teml.Var[(50, 7), "int32"],
        y: teml.Var[(50, 40), "float32", "output"]):
    for b in range(50):
        for l in range(7):
            for d in range(40):
                y[b, d] += table[index[b, l], d]
'''

ROWS = '''import teml


@teml.transform
def rows(ptr: teml.Var[(31,), "int32"], col: teml.Var[(90,), "int32"], val: teml.Var[(90,), "float64"],
         B: teml.Var[(25, 20), "float64"], y: teml.Var[(30, 20), "float64", "output"]):
    for i in range(30):
        for k in range(ptr[i], ptr[i + 1]):
            for c in range(20):
                y[i, c] += val[k] * B[col[k], c]
'''

CONV = '''import teml


@teml.transform
def conv(x: teml.Var[(3, 12, 62), "float32"], w: teml.Var[(10, 3, 3, 3), "float32"],
         y: teml.Var[(10, 10, 60), "float32", "output"]):
    for o in range(10):
        for r in range(10):
            for s in range(60):
                for c in range(3):
                    for p in range(3):
                        for q in range(3):
                            y[o, r, s] += w[o, c, p, q] * x[c, r + p, s + q]
'''


def test_a_bag_of_gathered_rows_sums_in_registers(teml):
    rng = np.random.default_rng(0)
    table = rng.standard_normal((300, 40)).astype(np.float32)
    index = rng.integers(0, 300, (50, 7)).astype(np.int32)
    out = teml.run(BAG, {"table": table, "index": index}, ["y"], extra=["--threads", "2", "-v"])
    np.testing.assert_allclose(out["y"], table[index].sum(axis=1), rtol=1e-5, atol=1e-5)
    steps = teml.attempt(BAG, {"table": table, "index": index}, [], extra=["-v"]).stderr
    order = re.search(r's\.reorder\(\["(L\d+)", "(L\d+)"\]\)', steps)
    if 40 <= 4 * vector_floats():
        # The feature loop (innermost as written), at most four vectors, goes outside the loop
        # over the bag and runs in lanes, its sums in registers.
        assert order and int(order.group(1)[1:]) > int(order.group(2)[1:]), steps
        assert f's.vectorize("{order.group(1)}")' in steps
    else:
        # Five 256-bit vectors are more than the registers keep for four sums: the features stay
        # innermost, in lanes.
        assert not order and 's.vectorize("L9")' in steps, steps


def test_csr_rows_times_a_dense_matrix(teml):
    rng = np.random.default_rng(1)
    ptr = np.sort(rng.integers(0, 91, 31)).astype(np.int32)
    ptr[0], ptr[-1] = 0, 90
    col = rng.integers(0, 25, 90).astype(np.int32)
    val, B = rng.standard_normal(90), rng.standard_normal((25, 20))
    out = teml.run(ROWS, {"ptr": ptr, "col": col, "val": val, "B": B}, ["y"], extra=["--threads", "2"])
    want = np.stack([sum((val[k] * B[col[k]] for k in range(ptr[i], ptr[i + 1])), np.zeros(20)) for i in range(30)])
    np.testing.assert_allclose(out["y"], want, rtol=1e-12, atol=1e-12)


def test_a_register_blocks_short_last_columns_run_as_masked_vectors(teml):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((3, 12, 62)).astype(np.float32)
    w = rng.standard_normal((10, 3, 3, 3)).astype(np.float32)
    out = teml.run(CONV, {"x": x, "w": w}, ["y"], extra=["--threads", "1"])
    want = np.zeros((10, 10, 60))
    for p in range(3):
        for q in range(3):
            want += np.einsum("oc,crs->ors", w[:, :, p, q], x[:, p:p + 10, q:q + 60])
    np.testing.assert_allclose(out["y"], want, rtol=1e-4, atol=1e-4)
    c = teml.attempt(CONV, {"x": x, "w": w}, [], extra=["--threads", "1"], command="emit").stdout
    # 60 columns: the last block's last vector holds 12 (60 = 3 x 16 + 12; with 256-bit vectors
    # 60 = 7 x 8 + 4), masked, in registers.
    last = 60 % vector_floats()
    # x's vectors are shared by the jammed rows: loaded once, through a row pointer (test_shared_loads.py).
    assert re.search(r"vrow(_\d+)? = &x\[c\]\[r \+ p\]\[s( \+ \d+)?\];", c), c
    assert re.search(r"teml_mload_vf\(\(vrow(_\d+)? \+ q\), %d\)" % last, c), c
    assert "#pragma omp simd" not in c  # no remainder left to the C compiler


COLUMN_SUMS = '''import teml


@teml.transform
def column_sums(A: teml.Var[(37, 300), "float64"], y: teml.Var[(300,), "float64", "output"]):
    for i in range(37):
        for j in range(300):
            y[j] += A[i, j]
'''

GEMV = '''import teml


@teml.transform
def gemv(A: teml.Var[(42, 300), "float64"], x: teml.Var[(300,), "float64"], y: teml.Var[(42,), "float64", "output"]):
    for i in range(42):
        for j in range(300):
            y[i] += A[i, j] * x[j]
'''


def jammed_by(rows, steps):
    return (re.search(r's\.split\("(L\d+)", %d\)' % rows, steps)
            and re.search(r's\.unroll_and_jam\("L\d+", %d\)' % rows, steps))


def jammed_by_four(steps):
    return jammed_by(4, steps)


def test_long_rows_of_sums_are_jammed_eight_rows_at_a_time(teml):
    # Whole numbers: every order of the additions gives the same sums, so a lost or doubled row shows.
    A = np.random.default_rng(3).integers(-50, 50, (37, 300)).astype(np.float64)  # 37 rows: a remainder of 5
    out = teml.run(COLUMN_SUMS, {"A": A}, ["y"], extra=["--threads", "2"])
    np.testing.assert_array_equal(out["y"], A.sum(axis=0))
    assert jammed_by(8, teml.attempt(COLUMN_SUMS, {"A": A}, [], extra=["-v"]).stderr)


def test_rows_a_multiple_of_4_kib_apart_are_jammed_four_at_a_time(teml):
    # Rows of 512 doubles: eight rows at once would share the sets of an 8-way L1 cache with the sums.
    source = COLUMN_SUMS.replace("300", "512")
    A = np.random.default_rng(5).integers(-50, 50, (37, 512)).astype(np.float64)
    out = teml.run(source, {"A": A}, ["y"], extra=["--threads", "2"])
    np.testing.assert_array_equal(out["y"], A.sum(axis=0))
    assert jammed_by_four(teml.attempt(source, {"A": A}, [], extra=["-v"]).stderr)


def test_dot_products_along_long_rows_are_jammed_four_rows_at_a_time(teml):
    rng = np.random.default_rng(4)
    A = rng.integers(-50, 50, (42, 300)).astype(np.float64)  # 42 rows: a remainder of 2
    x = rng.integers(-50, 50, 300).astype(np.float64)
    out = teml.run(GEMV, {"A": A, "x": x}, ["y"], extra=["--threads", "2"])
    np.testing.assert_array_equal(out["y"], A @ x)
    assert jammed_by_four(teml.attempt(GEMV, {"A": A, "x": x}, [], extra=["-v"]).stderr)


def test_sums_of_rows_that_share_no_load_are_not_jammed(teml):
    # y[i] += A[i, j]: four rows at once would share nothing and read four streams at once.
    source = GEMV.replace(" * x[j]", "")
    A = np.random.default_rng(7).integers(-50, 50, (42, 300)).astype(np.float64)
    out = teml.run(source, {"A": A, "x": A[0]}, ["y"], extra=["--threads", "2"])
    np.testing.assert_array_equal(out["y"], A.sum(axis=1))
    steps = teml.attempt(source, {"A": A, "x": A[0]}, [], extra=["-v"]).stderr
    assert "unroll_and_jam" not in steps and re.search(r's\.vectorize\("L\d+"\)', steps), steps


def test_dot_products_that_start_from_a_store_of_their_own_are_jammed_too(teml):
    # A user's gemv with `y[i] = 0` first: the stores go to a loop of their own (fission), then the jam.
    source = GEMV.replace("    for i in range(42):\n", "    for i in range(42):\n        y[i] = 1\n")
    rng = np.random.default_rng(6)
    A = rng.integers(-50, 50, (42, 300)).astype(np.float64)
    x = rng.integers(-50, 50, 300).astype(np.float64)
    out = teml.run(source, {"A": A, "x": x}, ["y"], extra=["--threads", "2"])
    np.testing.assert_array_equal(out["y"], A @ x + 1)
    steps = teml.attempt(source, {"A": A, "x": x}, [], extra=["-v"]).stderr
    assert re.search(r's\.fission\("(L\d+)", 1\)\n\s*s\.split\("\1\.f", 4\)\n\s*s\.unroll_and_jam\("\1\.f", 4\)', steps), steps


ATTENTION = '''import teml


@teml.transform
def attention(Q: teml.Var[(128, 64), "float32"], K: teml.Var[(128, 64), "float32"],
              V: teml.Var[(128, 64), "float32"], out: teml.Var[(128, 64), "float32", "output"]):
    for i in range(128):
        score = teml.zeros((128,), "float32")
        for j in range(128):
            for d in range(64):
                score[j] += Q[i, d] * K[j, d]
        top = teml.full((), float("-inf"), "float32")
        for j in range(128):
            top[()] = max(top[()], score[j])
        total = teml.zeros((), "float32")
        for j in range(128):
            p = teml.exp(score[j] - top[()])
            total[()] += p
            for d in range(64):
                out[i, d] += p * V[j, d]
        for d in range(64):
            out[i, d] = out[i, d] / total[()]
'''


def test_jammed_rows_keep_as_many_sums_in_registers_as_the_registers_hold(teml, monkeypatch):
    rng = np.random.default_rng(6)
    Q, K, V = (rng.standard_normal((128, 64)).astype(np.float32) for _ in range(3))
    out = teml.run(ATTENTION, {"Q": Q, "K": K, "V": V}, ["out"], extra=["--threads", "2"])
    score = Q.astype(np.float64) @ K.T
    p = np.exp(score - score.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out["out"], (p / p.sum(axis=1, keepdims=True)) @ V, rtol=1e-4, atol=1e-5)
    # The row-block pass jams four query rows into P V's loop over the features. Their sums stay
    # in registers across the keys: with AVX-512's 32 registers all four rows' 64 features (16
    # sums), with AVX2's 16 two vectors of the features at a time (8 sums), each block outside
    # the keys.
    for vector_bytes, features in ((64, r"0, 64"), (32, r"16 \* d_2_o, 16 \* d_2_o \+ 16")):
        monkeypatch.setenv("TEML_VECTOR_BYTES", str(vector_bytes))
        loops = teml.attempt(ATTENTION, {}, [], extra=["--emit", "loops"], command="emit").stdout
        assert re.search(r"for d_2 in \[%s\) vector\n(\s+for i in [^\n]* step 4\n)?\s+for j_3 in \[0, 128\)\n" % features,
                         loops), loops


WINDOW = '''import teml


@teml.transform
def window(a: teml.Var[(37, 9), "float32"], v: teml.Var[(37, 64), "float32"], y: teml.Var[(37, 64), "float32", "output"]):
    for j in range(37):
        for t in range(-4, 5):
            if 0 <= j + t < 37:
                for e in range(64):
                    y[j, e] += a[j, t + 4] * v[j + t, e]
'''


def test_rows_under_a_guard_keep_their_sums_in_registers_across_it(teml, monkeypatch):
    # Small whole numbers: every order of the additions gives the same sums.
    rng = np.random.default_rng(7)
    a = rng.integers(-4, 5, (37, 9)).astype(np.float32)
    v = rng.integers(-4, 5, (37, 64)).astype(np.float32)
    out = teml.run(WINDOW, {"a": a, "v": v}, ["y"], extra=["--threads", "2"])
    want = np.zeros((37, 64), np.float32)
    for j in range(37):
        for t in range(-4, 5):
            if 0 <= j + t < 37:
                want[j] += a[j, t + 4] * v[j + t]
    np.testing.assert_array_equal(out["y"], want)
    # No jam takes a row under its window's bounds check; the features go outside the window
    # instead, as many vectors at a time as half the registers hold, and the check runs once
    # for those vectors (a guard the same in every lane, in an explicit vector loop).
    for vector_bytes, features in ((64, r"0, 64"), (32, r"32 \* e_o, 32 \* e_o \+ 32")):
        monkeypatch.setenv("TEML_VECTOR_BYTES", str(vector_bytes))
        loops = teml.attempt(WINDOW, {}, [], extra=["--emit", "loops"], command="emit").stdout
        assert re.search(r"for e in \[%s\) vector\n\s+for t in \[-4, 5\)\n\s+if " % features, loops), loops
    monkeypatch.delenv("TEML_VECTOR_BYTES")
    c = teml.attempt(WINDOW, {}, [], command="emit").stdout
    assert re.search(r"for \(long t = -4; t < 5; t\+\+\) \{\n\s+if \([^\n]*\n\s+vacc \+= ", c), c


PRODUCT_WITH_A_TRANSPOSE = '''import teml


@teml.transform
def nt(a: teml.Var[(20, 256), "float32"], b: teml.Var[(36, 256), "float32"], c: teml.Var[(20, 36), "float32", "output"]):
    #! label: Li
    for i in range(20):
        #! label: Lk
        for k in range(36):
            #! label: Lj
            for j in range(256):
                c[i, k] += a[i, j] * b[k, j]
'''


def test_dot_products_of_two_rows_are_jammed_over_both(teml):
    # c = a b^T (x.grad = y.grad w^T in an MLP layer's gradient): four rows
    # of b jammed, then rows of a around them, as many sums as a vector has
    # lanes, each kept in a vector of its own (docs/lowering.md, partial sums).
    rng = np.random.default_rng(9)
    a, b = rng.integers(-4, 4, (20, 256)).astype(np.float32), rng.integers(-4, 4, (36, 256)).astype(np.float32)
    out = teml.run(PRODUCT_WITH_A_TRANSPOSE, {"a": a, "b": b}, ["c"], extra=["--threads", "2"])
    np.testing.assert_array_equal(out["c"], a @ b.T)
    steps = teml.attempt(PRODUCT_WITH_A_TRANSPOSE, {"a": a, "b": b}, [], extra=["-v"]).stderr
    rows = vector_floats() // 4
    assert 's.unroll_and_jam("Lk", 4)' in steps and f's.unroll_and_jam("Li", {rows})' in steps, steps
    c_code = teml.attempt(PRODUCT_WITH_A_TRANSPOSE, {}, [], command="emit").stdout
    assert "_part[" not in c_code, c_code  # no four vectors of partial sums per dot product
