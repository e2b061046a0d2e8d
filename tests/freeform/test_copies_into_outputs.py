"""`y[()] = teml.libop.f(...)` into an output the entry has not touched
before computes into y itself (src/frontend/freeform/copies_into_outputs.cpp):
the tensor the call made becomes y, and the copy is gone, as with
`return teml.libop.f(...)`. Where y held something before (an inout, an
earlier store), or the assignment runs in a loop or under a branch, the copy
stays. Either way the results are NumPy's, the gradients too."""
import numpy as np
import pytest

from conftest import Teml

PRODUCT = '''import teml


@teml.transform
def f(a: teml.Var[(6, 5), "float64"], b: teml.Var[(5, 7), "float64"], y: teml.Var[(6, 7), "float64", "{access}"]):
{before}    y[()] = teml.libop.matmul(a, b)
'''

rng = np.random.default_rng(8)
A, B = rng.integers(-5, 5, (6, 5)).astype(np.float64), rng.integers(-5, 5, (5, 7)).astype(np.float64)


def product(before="", access="output"):
    return PRODUCT.format(before=before, access=access)


def ir_as_written(t, program):
    r = t.attempt(program, {}, [], command="emit", extra=["--emit", "ir", "--no-auto"])
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_the_product_is_computed_into_the_output(tmp_path):
    t = Teml(tmp_path)
    ir = ir_as_written(t, product())
    assert ir.count("tensor ") == 3 and "var " not in ir, ir  # a, b and y: no tensor of the call's own
    assert "y[i][e0] += a[i][k] * b[k][e0]" in ir, ir
    got = t.run(product(), {"a": A, "b": B}, ["y"])
    np.testing.assert_array_equal(got["y"], A @ B)


@pytest.mark.parametrize("before,access,inout", [
    ("    y[0, 0] = 5.0\n", "output", None),  # touched before: the copy overwrites that
    ("", "inout", np.full((6, 7), 3.0)),      # the caller's values: the copy overwrites them
    ("    for r in range(2):\n    ", "output", None),  # in a loop
])
def test_the_copy_stays_where_y_holds_something_before_or_the_call_repeats(tmp_path, before, access, inout):
    t = Teml(tmp_path)
    program = product(before, access)
    assert "var " in ir_as_written(t, program)  # the call's own tensor, copied into y
    inputs = {"a": A, "b": B} if inout is None else {"a": A, "b": B, "y": inout}
    got = t.run(program, inputs, ["y"])
    np.testing.assert_array_equal(got["y"], A @ B)


def test_gradients_through_a_product_computed_into_the_output(tmp_path):
    t = Teml(tmp_path)
    w = rng.integers(-3, 3, (6, 7)).astype(np.float64)
    got = t.run(product(), {"a": A, "b": B, "y.grad": w}, ["a.grad", "b.grad"], command="grad",
                extra=["--wrt", "a,b", "--of", "y"])
    np.testing.assert_array_equal(got["a.grad"], w @ B.T)
    np.testing.assert_array_equal(got["b.grad"], A.T @ w)
