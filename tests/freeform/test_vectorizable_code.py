"""What the C compiler needs to vectorize free-form loops, and the values
they must keep: min and max as Python's (selects, which vectorize), scalars
of a loop body as C variables, bool tensors as bytes, and math functions in
SIMD loops (glibc's vector math, within a few ulp)."""
import numpy as np


def test_min_and_max_are_pythons_with_nan(teml):
    program = '''import teml


@teml.transform
def f(a: teml.Var[(6,), "float64"], b: teml.Var[(6,), "float64"],
      lo: teml.Var[(6,), "float64", "output"], hi: teml.Var[(6,), "float64", "output"]):
    #! label: Li
    for i in range(6):
        lo[i] = min(a[i], b[i])
        hi[i] = max(a[i], b[i])


@teml.schedule(f)
def sched(s):
    s.vectorize("Li")
'''
    nan = float("nan")
    a = np.array([nan, 1.0, nan, -2.0, 3.0, 0.5])
    b = np.array([1.0, nan, nan, 5.0, -1.0, 0.5])
    out = teml.run(program, {"a": a, "b": b}, ["lo", "hi"])
    want_lo = np.array([min(x, y) for x, y in zip(a, b)])
    want_hi = np.array([max(x, y) for x, y in zip(a, b)])
    np.testing.assert_array_equal(out["lo"], want_lo)
    np.testing.assert_array_equal(out["hi"], want_hi)


def test_a_loop_with_scalars_bools_and_tanh_agrees_with_numpy(teml):
    program = '''import teml


@teml.transform
def f(x: teml.Var[(1000,), "float32"], y: teml.Var[(1000,), "float32", "output"],
      positive: teml.Var[(1000,), "bool", "output"]):
    #! label: Li
    for i in range(1000):
        d = x[i] * x[i]
        inside = x[i] > 0
        positive[i] = inside
        y[i] = teml.tanh(d if inside else -d) + teml.exp(-d)


@teml.schedule(f)
def sched(s):
    s.vectorize("Li")
'''
    x = np.random.default_rng(3).standard_normal(1000).astype(np.float32)
    out = teml.run(program, {"x": x}, ["y", "positive"])
    d = x.astype(np.float64) ** 2
    np.testing.assert_allclose(out["y"], np.tanh(np.where(x > 0, d, -d)) + np.exp(-d), rtol=2e-6, atol=2e-6)
    np.testing.assert_array_equal(out["positive"], x > 0)


def test_sigmoid_in_a_simd_loop_is_exact_where_floats_can_say_and_keeps_nan(teml):
    program = '''import teml


@teml.transform
def f(x: teml.Var[(12,), "float64"], x32: teml.Var[(12,), "float32"],
      y: teml.Var[(12,), "float64", "output"], y32: teml.Var[(12,), "float32", "output"]):
    #! label: Li
    for i in range(12):
        y[i] = teml.sigmoid(x[i])
        y32[i] = teml.sigmoid(x32[i])


@teml.schedule(f)
def sched(s):
    s.vectorize("Li")
'''
    x = np.array([-np.inf, -1000, -100, -20, -1, 0, 1, 20, 100, 1000, np.inf, np.nan])
    out = teml.run(program, {"x": x, "x32": x.astype(np.float32)}, ["y", "y32"])
    with np.errstate(over="ignore"):
        want = 1 / (1 + np.exp(-x))
    np.testing.assert_allclose(out["y"][2:10], want[2:10], rtol=1e-14)
    np.testing.assert_allclose(out["y32"][3:9], want[3:9], rtol=1e-6)
    # Below the smallest subnormal the result is 0; a subnormal one is the float nearest it (sigmoid(-100) in float32).
    assert out["y"][0] == 0 and out["y"][1] == 0 and out["y32"][0] == 0 and out["y32"][1] == 0
    assert out["y32"][2] == np.float32(want[2]) != 0 and out["y"][10] == 1 and out["y32"][10] == 1
    assert np.isnan(out["y"][11]) and np.isnan(out["y32"][11])


def test_bool_reductions_are_or_and_on_every_thread_count(teml):
    program = '''import teml


@teml.transform
def f(m: teml.Var[(512,), "bool"], anyof: teml.Var[(2,), "bool", "output"], allof: teml.Var[(), "bool", "output"]):
    allof[()] = True
    for i in range(512):
        anyof[i % 2] += m[i]
        allof[()] *= m[i]
'''
    for m in (np.ones(512, bool), np.arange(512) % 4 == 1, np.zeros(512, bool)):
        for threads in ("1", "2", "3", "4"):
            out = teml.run(program, {"m": m}, ["anyof", "allof"], extra=["--threads", threads])
            assert out["anyof"].view(np.uint8).tolist() == [int(m[0::2].any()), int(m[1::2].any())]
            assert out["allof"].view(np.uint8).tolist() == int(m.all())
