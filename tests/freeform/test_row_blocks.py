"""Blocks of rows that share what they read (docs/auto-schedule.md,
auto_row_blocks): attention's query rows, four at a time, each block's
scores and weighted sum jammed so that they read a key or value row once for
the four. Checked against NumPy and the interpreter (--verify), with
whole numbers where every order of additions gives the same sums."""
import re

import numpy as np

from conftest import EXAMPLES  # noqa: F401  (the conftest's TEML)


def attention(rows):
    return f'''import teml


@teml.transform
def attention(Q: teml.Var[({rows}, 64), "float64"], K: teml.Var[(128, 64), "float64"],
              V: teml.Var[(128, 64), "float64"], out: teml.Var[({rows}, 64), "float64", "output"]):
    for i in range({rows}):
        score = teml.zeros((128,), "float64")
        for j in range(128):
            for d in range(64):
                score[j] += Q[i, d] * K[j, d]
        top = teml.full((), float("-inf"), "float64")
        for j in range(128):
            top[()] = max(top[()], score[j])
        total = teml.zeros((), "float64")
        for j in range(128):
            p = teml.exp((score[j] - top[()]) / 64.0)
            total[()] += p
            for d in range(64):
                out[i, d] += p * V[j, d]
        for d in range(64):
            out[i, d] = out[i, d] / total[()]
'''


def expected(Q, K, V):
    s = Q @ K.T
    p = np.exp((s - s.max(axis=1, keepdims=True)) / 64.0)
    return (p @ V) / p.sum(axis=1, keepdims=True)


def inputs(rows):
    rng = np.random.default_rng(7)
    return {n: rng.integers(-3, 4, shape).astype(np.float64)
            for n, shape in (("Q", (rows, 64)), ("K", (128, 64)), ("V", (128, 64)))}


def test_query_rows_are_blocked_four_at_a_time(teml):
    program, given = attention(40), inputs(40)
    out = teml.run(program, given, ["out"], extra=["--threads", "2"])
    np.testing.assert_allclose(out["out"], expected(**given), rtol=1e-12, atol=1e-14)
    steps = teml.attempt(program, given, [], extra=["-v"]).stderr
    assert re.search(r's\.split\("(L\d+)", 4\)', steps), steps
    # The scores and the weighted sum: two jammed blocks.
    assert len(re.findall(r's\.unroll_and_jam\("L[\d.f]+", 4\)', steps)) == 2, steps


def test_rows_that_blocks_do_not_divide_run_as_written(teml):
    program, given = attention(41), inputs(41)
    out = teml.run(program, given, ["out"], extra=["--threads", "2"])
    np.testing.assert_allclose(out["out"], expected(**given), rtol=1e-12, atol=1e-14)
    row_loop = "L%d" % (program.splitlines().index("    for i in range(41):") + 1)
    assert f's.split("{row_loop}"' not in teml.attempt(program, given, [], extra=["-v"]).stderr
