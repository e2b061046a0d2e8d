"""A CSR row's loop split into chunks (`split`), and a chunk's loop cut in
two by `fission` with a scalar computed before the cut and used after it:
the scalar becomes one element per iteration of the chunk (as many as the
chunk's length, the split's factor), indexed by the entry's place in its
chunk. The first loop then runs its iterations apart (its writes
`w[k - (ptr[i] + 8 * o)]` differ across k: the row's start is one value for
every iteration), so it may be vectorized. Each run is checked against the
interpreter (--verify) on rows of every length from 0 to 20 (chunks of 8
leave every remainder)."""
import numpy as np

from conftest import EXAMPLES  # noqa: F401  (the conftest's TEML)

ROWS = '''import teml


@teml.transform
def f(ptr: teml.Var[(22,), "int32"], e: teml.Var[(210,), "float64"], x: teml.Var[(210,), "float64"],
      y: teml.Var[(21,), "float64", "output"], total: teml.Var[(21,), "float64", "output"]):
    for i in range(21):
        #! label: Lk
        for k in range(ptr[i], ptr[i + 1]):
            w = teml.exp(min(e[k], 3.0))
            total[i] += w
            y[i] += w * x[k]


@teml.schedule(f)
def schedule(s):
    o, k = s.split("Lk", 8)
    s.fission(k, 1)
    {extra}
'''


def inputs():
    rng = np.random.default_rng(0)
    lengths = np.arange(21)  # 0, 1, ..., 20 entries
    ptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    return {"ptr": ptr, "e": rng.standard_normal(210), "x": rng.standard_normal(210)}, ptr


def expected(data, ptr):
    w = np.exp(np.minimum(data["e"], 3.0))
    y = np.array([np.sum(w[ptr[i]:ptr[i + 1]] * data["x"][ptr[i]:ptr[i + 1]]) for i in range(21)])
    t = np.array([np.sum(w[ptr[i]:ptr[i + 1]]) for i in range(21)])
    return y, t


def test_a_chunk_of_a_row_is_cut_with_its_scalar_kept_per_entry(teml):
    data, ptr = inputs()
    out = teml.run(ROWS.replace("{extra}", "pass"), data, ["y", "total"])
    y, t = expected(data, ptr)
    np.testing.assert_allclose(out["y"], y, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(out["total"], t, rtol=1e-12, atol=1e-12)


def test_the_first_loop_of_the_cut_chunk_runs_in_lanes(teml):
    data, ptr = inputs()
    out = teml.run(ROWS.replace("{extra}", "s.vectorize(k)"), data, ["y", "total"], extra=["-v"])
    y, t = expected(data, ptr)
    np.testing.assert_allclose(out["y"], y, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(out["total"], t, rtol=1e-12, atol=1e-12)


def test_a_whole_row_is_not_cut_with_a_scalar_across_it(teml):
    program = ROWS.replace('    o, k = s.split("Lk", 8)\n    s.fission(k, 1)\n    {extra}\n', '    s.fission("Lk", 1)\n')
    data, _ = inputs()
    r = teml.attempt(program, data, ["y", "total"])
    assert r.returncode == 1
    assert "to have constant bounds or to be a chunk of a split loop" in r.stderr, r.stderr
