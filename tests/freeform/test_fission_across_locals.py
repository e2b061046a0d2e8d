"""fission across a loop's local tensor (docs/transformations.md, fission):
a tensor local to the loop that both halves use becomes local to the loop
around it, one copy per iteration of that loop holding every iteration's
elements, as FreeTensor's fission expands the tensors its loop defines.
Checked against the interpreter (--verify) on integers and NumPy."""
import re

import numpy as np

SCALED = '''import teml
N = 10
M = 37
D = 5


@teml.transform
def scaled(e: teml.Var[(N, M), "int32"], s: teml.Var[(N,), "int32"], g: teml.Var[(N, D), "int32"],
           vg: teml.Var[(M, D), "int32", "output"], out: teml.Var[(N, M), "int32", "output"]):
    t = teml.zeros((N, M), "int32")
    #! label: Li
    for i in range(N):
        #! label: Lj
        for j in range(M):
            t[i, j] = e[i, j] * s[i] + 1
            for d in range(D):
                vg[j, d] += g[i, d] * t[i, j]
            out[i, j] = t[i, j] * 2


@teml.schedule(scaled)
def schedule(s):
    s.local("Lj", "t")
    s.fission("Lj", 1)
'''


def inputs():
    rng = np.random.default_rng(3)
    return {"e": rng.integers(-9, 9, (10, 37), dtype=np.int32), "s": rng.integers(-9, 9, 10, dtype=np.int32),
            "g": rng.integers(-9, 9, (10, 5), dtype=np.int32)}


def test_a_local_both_halves_use_becomes_one_row_of_the_loop_around(teml):
    program = SCALED
    x = inputs()
    out = teml.run(program, x, ["vg", "out"], extra=["--threads", "2"])
    t = x["e"] * x["s"][:, None] + 1
    np.testing.assert_array_equal(out["vg"], t.T @ x["g"])
    np.testing.assert_array_equal(out["out"], 2 * t)
    c = teml.attempt(program, x, [], command="emit").stdout
    assert "int32_t t[1][37]" in c, c  # one row per iteration of i, not an element per j, nor the matrix
    assert len(re.findall(r"for \(long j = 0; j < 37; j\+\+\)", c)) == 2, c


OUTERMOST = '''import teml
M = 37


@teml.transform
def outermost(e: teml.Var[(M,), "int32"], g: teml.Var[(5,), "int32"],
              vg: teml.Var[(M, 5), "int32", "output"], out: teml.Var[(M,), "int32", "output"]):
    t = teml.zeros((M,), "int32")
    #! label: Lj
    for j in range(M):
        t[j] = e[j] * 3 + 1
        for d in range(5):
            vg[j, d] += g[d] * t[j]
        out[j] = t[j] * 2


@teml.schedule(outermost)
def schedule(s):
    s.local("Lj", "t")
    s.fission("Lj", 1)
'''


def test_a_local_of_a_loop_with_no_loop_around_is_refused(teml):
    x = {"e": np.arange(37, dtype=np.int32), "g": np.arange(5, dtype=np.int32)}
    result = teml.attempt(OUTERMOST, x, [])
    assert result.returncode != 0
    assert "'t'" in result.stderr and "local copy" in result.stderr, result.stderr


FUSED_WEIGHTS = '''import teml


@teml.transform
def fused(e: teml.Var[(9, 37), "float64"], s: teml.Var[(9,), "float64"], V: teml.Var[(37, 20), "float64"],
          out: teml.Var[(9, 20), "float64", "output"]):
    p = teml.zeros((9, 37), "float64")
    for i in range(9):
        for j in range(37):
            p[i, j] = e[i, j] / s[i]
    for i in range(9):
        for j in range(37):
            for d in range(20):
                out[i, d] += p[i, j] * V[j, d]
'''


def test_the_automatic_schedule_divides_in_lanes_what_fusion_made_local(teml):
    # Fusion makes p local to the loop over j; the division is then cut out
    # of that loop again (auto_fission_math) and runs in lanes.
    rng = np.random.default_rng(8)
    x = {"e": rng.random((9, 37)) + 0.5, "s": rng.random(9) + 1.0, "V": rng.standard_normal((37, 20))}
    out = teml.run(FUSED_WEIGHTS, x, ["out"], extra=["--threads", "2"])
    np.testing.assert_allclose(out["out"], (x["e"] / x["s"][:, None]) @ x["V"], rtol=1e-12)
    steps = teml.attempt(FUSED_WEIGHTS, x, [], extra=["-v"]).stderr
    cut = re.search(r's\.fission\("(L\d+)", 1\)', steps)
    assert cut and f's.local("{cut.group(1)}", "p")' in steps, steps
    assert f's.vectorize("{cut.group(1)}")' in steps, steps
