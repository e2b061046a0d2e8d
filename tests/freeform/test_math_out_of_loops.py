"""Math out of loops that hold loops (docs/auto-schedule.md,
auto_fission_math): a loop that calls exp and then runs a loop is cut
after the call, the scalar it computed becoming one element per
iteration, so the exp runs in lanes. Checked against NumPy and the
interpreter (--verify)."""
import re

import numpy as np

WEIGHTED_SUM = '''import teml


@teml.transform
def weighted(score: teml.Var[(9, 37), "float64"], V: teml.Var[(37, 20), "float64"],
             out: teml.Var[(9, 20), "float64", "output"], total: teml.Var[(9,), "float64", "output"]):
    for i in range(9):
        for j in range(37):
            p = teml.exp(score[i, j])
            total[i] += p
            for d in range(20):
                out[i, d] += p * V[j, d]
'''


def test_a_weighted_sum_computes_its_weights_in_a_loop_of_their_own(teml):
    rng = np.random.default_rng(5)
    score, V = rng.standard_normal((9, 37)), rng.standard_normal((37, 20))
    out = teml.run(WEIGHTED_SUM, {"score": score, "V": V}, ["out", "total"], extra=["--threads", "2"])
    p = np.exp(score)
    np.testing.assert_allclose(out["total"], p.sum(axis=1), rtol=1e-12)
    np.testing.assert_allclose(out["out"], p @ V, rtol=1e-12, atol=1e-12)
    steps = teml.attempt(WEIGHTED_SUM, {"score": score, "V": V}, [], extra=["-v"]).stderr
    cut = re.search(r's\.fission\("(L\d+)", 2\)', steps)
    assert cut, steps
    assert f's.vectorize("{cut.group(1)}")' in steps  # the loop of exps runs in lanes


# A weight divided by the row's sum before a loop, and a division after it:
# the shape of softmax's gradient (y = e / s; after the dot product g of a
# row, e.grad += g / s).
DIVIDED = '''import teml


@teml.transform
def divided(e: teml.Var[(9, 37), "float64"], s: teml.Var[(9,), "float64"], V: teml.Var[(37, 20), "float64"],
            G: teml.Var[(9, 20), "float64"], out: teml.Var[(9, 20), "float64", "output"],
            back: teml.Var[(9, 37), "float64", "output"]):
    for i in range(9):
        for j in range(37):
            p = e[i, j] / s[i]
            g = teml.zeros((), "float64")
            for d in range(20):
                out[i, d] += p * V[j, d]
                g[()] += G[i, d] * V[j, d]
            back[i, j] = g[()] / s[i] - p
'''


def test_divisions_before_and_after_an_inner_loop_run_in_loops_of_their_own(teml):
    rng = np.random.default_rng(6)
    e, s = rng.random((9, 37)) + 0.5, rng.random(9) + 1.0
    V, G = rng.standard_normal((37, 20)), rng.standard_normal((9, 20))
    inputs = {"e": e, "s": s, "V": V, "G": G}
    out = teml.run(DIVIDED, inputs, ["out", "back"], extra=["--threads", "2", "--verify"])
    p = e / s[:, None]
    np.testing.assert_allclose(out["out"], p @ V, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(out["back"], (G @ V.T) / s[:, None] - p, rtol=1e-12, atol=1e-12)
    steps = teml.attempt(DIVIDED, inputs, [], extra=["-v"]).stderr
    assert len(re.findall(r's\.fission\("L\d+', steps)) == 2, steps  # before the loop over d and after it
