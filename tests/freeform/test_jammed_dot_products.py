"""Short dot products side by side (a row loop split and its rows jammed
into the dot product's loop, as attention's scores `s[j] += Q[i, d] * K[j, d]`
are) sum each product in its own vector of lanes, and the vectors across
their lanes together (src/backend/cpu/nest_emitter_joint_sums.cpp). Whole
numbers: every order of the additions gives the same sums, so a product
summed into the wrong accumulator, twice or not at all shows."""
import subprocess

import numpy as np

from conftest import TEML


def scores(rows, dtype, jam, start_from_output=False):
    access = "inout" if start_from_output else "output"
    return f'''import teml


@teml.transform
def f(Q: teml.Var[(5, 64), "{dtype}"], K: teml.Var[({rows}, 64), "{dtype}"],
      s: teml.Var[(5, {rows}), "{dtype}", "{access}"]):
    #! label: Li
    for i in range(5):
        #! label: Lj
        for j in range({rows}):
            #! label: Ld
            for d in range(64):
                s[i, j] += Q[i, d] * K[j, d]


@teml.schedule(f)
def schedule(s):
    o, j = s.split("Lj", {jam})
    s.unroll_and_jam(j, {jam})
    s.vectorize("Ld")
'''


def whole(shape, dtype, seed):
    return np.random.default_rng(seed).integers(-20, 20, shape).astype(dtype)


def check(teml, program, Q, K, start=None):
    inputs = {"Q": Q, "K": K}
    if start is not None:
        inputs["s"] = start
    out = teml.run(program, inputs, ["s"], extra=["--no-auto"])
    expected = Q @ K.T + (start if start is not None else 0)
    np.testing.assert_array_equal(out["s"], expected)
    emitted = subprocess.run([TEML, "emit", str(teml.dir / "program.py"), "--emit", "c", "--no-auto"],
                             capture_output=True, text=True)
    assert emitted.returncode == 0, emitted.stderr
    return emitted.stdout


def test_four_jammed_float_products_are_summed_across_lanes_together(teml):
    c = check(teml, scores(24, "float32", 4), whole((5, 64), np.float32, 0), whole((24, 64), np.float32, 1))
    assert "lane_sums" in c and "__builtin_shuffle" in c
    # in explicit vectors, one per product, the row of K that the four share loaded once
    assert c.count("_lanes = {0};") == 4 and "teml_keep(" in c
    # the block of four rows runs once: a block, not a loop GCC must prove runs once
    assert "const long j = 4 * j_o;" in c


def test_three_products_pad_the_tree_with_a_vector_of_zeros(teml):
    c = check(teml, scores(21, "float32", 3), whole((5, 64), np.float32, 2), whole((21, 64), np.float32, 3))
    assert "lane_sums" in c


def test_double_products_with_a_remainder_row_add_to_the_output(teml):
    # 22 rows in fours: two rows left over, summed as before
    start = whole((5, 22), np.float64, 6)
    check(teml, scores(22, "float64", 4, start_from_output=True), whole((5, 64), np.float64, 4),
          whole((22, 64), np.float64, 5), start)


def test_two_products_of_eight_jammed_rows(teml):
    check(teml, scores(16, "float64", 8), whole((5, 64), np.float64, 7), whole((16, 64), np.float64, 8))


def test_products_of_a_function_sum_in_lanes_left_to_the_compiler(teml):
    # abs(...) has no form in explicit vectors: the lanes of each product are GCC's
    program = scores(24, "float32", 4).replace("Q[i, d] * K[j, d]", "abs(Q[i, d]) * K[j, d]")
    Q, K = whole((5, 64), np.float32, 9), whole((24, 64), np.float32, 10)
    out = teml.run(program, {"Q": Q, "K": K}, ["s"], extra=["--no-auto"])
    np.testing.assert_array_equal(out["s"], np.abs(Q) @ K.T)
    c = subprocess.run([TEML, "emit", str(teml.dir / "program.py"), "--emit", "c", "--no-auto"],
                       capture_output=True, text=True).stdout
    assert "lane_sums" in c and "_lanes = {0};" not in c


SDDMM = '''import teml


@teml.transform
def f(ptr: teml.Var[(7,), "int32"], col: teml.Var[(30,), "int32"], U: teml.Var[(6, 48), "float32"],
      V: teml.Var[(9, 48), "float32"], out: teml.Var[(30,), "float32", "output"]):
    #! label: Li
    for i in range(6):
        for k in range(ptr[i], ptr[i + 1]):
            #! label: Lf
            for f in range(48):
                out[k] += U[i, f] * V[col[k], f]


@teml.schedule(f)
def schedule(s):
    s.vectorize("Lf")
'''


def test_one_product_alone_is_summed_across_its_lanes_in_a_tree(teml):
    # SDDMM: one dot product per nonzero, of a row gathered through col
    rng = np.random.default_rng(11)
    ptr = np.array([0, 4, 4, 11, 19, 26, 30], np.int32)
    col = rng.integers(0, 9, 30).astype(np.int32)
    U, V = whole((6, 48), np.float32, 12), whole((9, 48), np.float32, 13)
    out = teml.run(SDDMM, {"ptr": ptr, "col": col, "U": U, "V": V}, ["out"], extra=["--no-auto"])
    rows = np.repeat(np.arange(6), np.diff(ptr))
    np.testing.assert_array_equal(out["out"], np.einsum("kf,kf->k", U[rows], V[col]))
    c = subprocess.run([TEML, "emit", str(teml.dir / "program.py"), "--emit", "c", "--no-auto"],
                       capture_output=True, text=True).stdout
    assert "lane_sums" in c and "__builtin_shuffle" in c


def test_a_product_with_a_strided_operand_reads_it_along_the_sum(teml):
    # C[i, j] += A[i, d] * B[d, j] over d: B moves with d in its first
    # subscript, so it is a strided read, not one value for the whole vector
    # (fuzz seed 12796: B[d, j] was broadcast from its first row).
    program = '''import teml


@teml.transform
def f(A: teml.Var[(5, 8), "float64"], B: teml.Var[(8, 5), "float64"], C: teml.Var[(5, 5), "float64", "output"]):
    for i in range(5):
        for j in range(5):
            #! label: Ld
            for d in range(8):
                C[i, j] += A[i, d] * B[d, j]


@teml.schedule(f)
def schedule(s):
    s.vectorize("Ld")
'''
    A, B = whole((5, 8), np.float64, 14), whole((8, 5), np.float64, 15)
    out = teml.run(program, {"A": A, "B": B}, ["C"], extra=["--no-auto"])
    np.testing.assert_array_equal(out["C"], A @ B)
