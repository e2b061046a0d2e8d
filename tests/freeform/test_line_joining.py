"""Python's line joining holds everywhere: a statement continued inside
brackets, or after a backslash, ends where Python says, and the
indentation after it counts as usual (black-formatted programs)."""
import numpy as np


def test_a_call_continued_inside_brackets_then_a_statement(teml):
    program = '''import teml


@teml.transform
def f(a: teml.Var[(8,), "float32"], b: teml.Var[(8,), "float32"], y: teml.Var[(8,), "float32", "output"]):
    for i in range(8):
        c = min(a[i],
                b[i])
        y[i] = c
'''
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 8)).astype(np.float32)
    np.testing.assert_allclose(teml.run(program, {"a": a, "b": b}, ["y"])["y"], np.minimum(a, b))


def test_a_condition_continued_inside_parentheses_keeps_the_indentation_after_it(teml):
    program = '''import teml


@teml.transform
def f(a: teml.Var[(8,), "float32"], b: teml.Var[(8,), "float32"], y: teml.Var[(8,), "float32", "output"]):
    for i in range(8):
        if (a[i] > 0
                and b[i] > 0):
            y[i] = a[i] + b[i]
        else:
            y[i] = -1
    y[0] += 100
'''
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((2, 8)).astype(np.float32)
    want = np.where((a > 0) & (b > 0), a + b, -1).astype(np.float32)
    want[0] += 100
    np.testing.assert_allclose(teml.run(program, {"a": a, "b": b}, ["y"])["y"], want, rtol=1e-6)


def test_black_formatted_headers_subscripts_annotations_and_backslashes(teml):
    program = '''import teml


@teml.transform
def f(
    a: teml.Var[
        (4, 6),
        "float64",
    ],
    y: teml.Var[(4,), "float64", "output"],
):
    for i in range(
        4,
    ):
        for j in range(0,
                       6):
            y[
                i
            ] += a[i,
                   j] * \\
                2
'''
    a = np.random.default_rng(2).standard_normal((4, 6))
    np.testing.assert_allclose(teml.run(program, {"a": a}, ["y"])["y"], 2 * a.sum(1))
