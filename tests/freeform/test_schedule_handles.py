"""Schedules as FreeTensor's users write them: merge returns the merged
loop, and fission counts statements as written, giving a tensor the body
defines before the cut one element per iteration."""
import numpy as np


def test_merge_returns_the_merged_loop(teml):
    program = '''import teml


@teml.transform
def f(x: teml.Var[(6, 8), "float64"], y: teml.Var[(6, 8), "float64", "output"]):
    #! label: Li
    for i in range(6):
        #! label: Lj
        for j in range(8):
            y[i, j] = x[i, j] + 1


@teml.schedule(f)
def sched(s):
    m = s.merge("Li", "Lj")
    s.parallelize(m)
'''
    x = np.random.default_rng(0).standard_normal((6, 8))
    np.testing.assert_allclose(teml.run(program, {"x": x}, ["y"])["y"], x + 1)


def test_fission_after_a_local_keeps_one_element_per_iteration(teml):
    # FreeTensor's test_correct_dependency_after: buf is defined before the
    # cut and read after it.
    program = '''import teml


@teml.transform
def f(x: teml.Var[(10,), "float64"], y: teml.Var[(10,), "float64", "output"]):
    #! label: L2
    for i in range(10):
        buf = x[i] * 2
        y[i] = buf * buf


@teml.schedule(f)
def sched(s):
    second = s.fission("L2", 1)
    s.parallelize(second)
'''
    x = np.random.default_rng(1).standard_normal(10)
    np.testing.assert_allclose(teml.run(program, {"x": x}, ["y"])["y"], (2 * x) ** 2)


def test_fission_counts_statements_as_written(teml):
    program = '''import teml


@teml.transform
def f(x: teml.Var[(7,), "float64"], y: teml.Var[(7,), "float64", "output"], z: teml.Var[(7,), "float64", "output"]):
    #! label: L
    for i in range(1, 8):
        buf = x[i - 1] * 2
        t = x[i - 1] + 1
        y[i - 1] = buf * buf
        z[i - 1] = t * buf


@teml.schedule(f)
def sched(s):
    a = s.fission("L", 1)
    s.fission(a, 1)
'''
    x = np.random.default_rng(2).standard_normal(7)
    out = teml.run(program, {"x": x}, ["y", "z"])
    np.testing.assert_allclose(out["y"], (2 * x) ** 2)
    np.testing.assert_allclose(out["z"], (x + 1) * 2 * x)
