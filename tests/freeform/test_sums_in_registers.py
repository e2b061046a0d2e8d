"""Sums kept in registers (docs/auto-schedule.md, auto_sums_in_registers):
a short feature loop inside a loop that adds into its elements goes
outside it and runs in lanes, the sums jammed around the inner loop, with
data-dependent bounds and gathered rows; and a register block's short last
column block runs as masked vectors (docs/lowering.md,
single_iteration_loops). Each is checked against NumPy and the
interpreter (--verify)."""
import re

import numpy as np

from conftest import EXAMPLES  # noqa: F401  (the conftest's TEML)

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
    # The feature loop (innermost as written) goes outside the loop over the bag and runs in lanes.
    order = re.search(r's\.reorder\(\["(L\d+)", "(L\d+)"\]\)', steps)
    assert order and int(order.group(1)[1:]) > int(order.group(2)[1:]), steps
    assert f's.vectorize("{order.group(1)}")' in steps


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
    assert "teml_mload_vf(&x[c][r + p][s + q], 12)" in c  # 60 = 3 x 16 + 12
    assert "#pragma omp simd" not in c  # no remainder left to the C compiler
