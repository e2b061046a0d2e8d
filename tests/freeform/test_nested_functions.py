"""Functions defined inside functions (FreeTensor's tests write every helper
so) are inlined like any function and see the names of the function around
them, as Python's closures do."""
import numpy as np


def test_a_helper_defined_in_the_entry_sees_its_names(teml):
    program = '''import teml


@teml.transform
def f(x: teml.Var[(5,), "float64"], y: teml.Var[(5,), "float64", "output"]):
    scale = 3

    def times_scale(v):
        return v * scale

    for i in range(5):
        y[i] = times_scale(x[i]) + 1
'''
    x = np.random.default_rng(0).standard_normal(5)
    np.testing.assert_allclose(teml.run(program, {"x": x}, ["y"])["y"], 3 * x + 1)


def test_helpers_nest_and_close_over_every_enclosing_function(teml):
    program = '''import teml

OFFSET = 2


def outer(n):
    def middle(v):
        def inner(w):
            return w + n + OFFSET
        return inner(v) * 2
    return middle(1)


@teml.transform
def f(x: teml.Var[(4,), "float64"], y: teml.Var[(4,), "float64", "output"]):
    m = 5

    def g(v):
        def h(w):
            return w * m
        return h(v) + outer(3)
    for i in range(4):
        y[i] = g(x[i])
'''
    x = np.random.default_rng(1).standard_normal(4)
    np.testing.assert_allclose(teml.run(program, {"x": x}, ["y"])["y"], 5 * x + (1 + 3 + 2) * 2)


def test_a_helper_called_after_its_function_returned_is_refused(teml):
    program = '''import teml


def make(n):
    def add(v):
        return v + n
    return add


@teml.transform
def f(x: teml.Var[(4,), "float64"], y: teml.Var[(4,), "float64", "output"]):
    g = make(2)
    y[0] = g(x[0])
'''
    result = teml.attempt(program, {"x": np.zeros(4)}, ["y"])
    assert result.returncode == 1
    assert "program.py:13:12: error: 'add' is called after the function it is defined in returned" in result.stderr
