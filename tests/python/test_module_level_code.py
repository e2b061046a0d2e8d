"""Module-level Python that no transform uses is Python's business: NumPy
code, other imports and scripts around the transforms do not stop them
compiling. A transform that does use such a name gets a teml.ProgramError
at that use, saying what the name is."""
from __future__ import annotations

import sys, time  # noqa: E401  (imports of other modules, several on one line)
import numpy as np
import pytest

import teml

a = np.arange(3.0)
b = a + 1  # a number plus an array: NumPy's, not a constant teml could compute
eps = 1e-6; fd = np.zeros_like(a)  # noqa: E702
scale = 2.0  # a number: a constant teml reads
started = time.time()
print_later = f"{len(sys.argv)} arguments"  # a string prefix teml's subset refuses


def finite_difference(f, x):  # plain Python, outside teml's subset: only calls_plain_python uses it
    with np.errstate(all="ignore"):
        return [(f(x + eps) - f(x)) / eps for _ in range(2)]


@teml.transform
def scaled(x: teml.Var[(n,), "float64"], y: teml.Var[(n,), "float64", "output"]):
    for i in range(n):
        y[i] = x[i] * scale + eps


@teml.transform
def uses_numpy(x: teml.Var[(n,), "float64"], y: teml.Var[(n,), "float64", "output"]):
    for i in range(n):
        y[i] = np.exp(x[i])


@teml.transform
def uses_an_array(x: teml.Var[(n,), "float64"], y: teml.Var[(n,), "float64", "output"]):
    for i in range(n):
        y[i] = x[i] + b


@teml.transform
def calls_plain_python(x: teml.Var[(n,), "float64"], y: teml.Var[(n,), "float64", "output"]):
    for i in range(n):
        y[i] = finite_difference(x, i)


if __name__ == "__main__":
    print(scaled(np.ones(3)))


def line_of(text):
    return next(k for k, line in enumerate(open(__file__).read().splitlines(), 1) if text in line)


def test_numpy_code_around_a_transform_is_left_to_python():
    x = np.arange(5.0)
    np.testing.assert_allclose(scaled(x), x * 2.0 + 1e-6)


def test_a_transform_using_another_module_is_an_error_at_that_use():
    with pytest.raises(teml.ProgramError) as e:
        uses_numpy(np.ones(3))
    assert (e.value.file, e.value.line) == (__file__, line_of("y[i] = np.exp(x[i])"))
    assert e.value.message.startswith("'np' is the Python module 'numpy' (imported at line 8)")


def test_a_value_only_python_computes_is_an_error_at_its_use_naming_its_line():
    with pytest.raises(teml.ProgramError) as e:
        uses_an_array(np.ones(3))
    assert (e.value.file, e.value.line) == (__file__, line_of("y[i] = x[i] + b"))
    assert e.value.message.startswith(f"'b' is set at line {line_of('b = a + 1')} from 'a', set at line "
                                      f"{line_of('a = np.arange(3.0)')} from 'np', the Python module 'numpy'")


def test_a_plain_python_function_called_by_a_transform_is_refused_where_it_leaves_the_subset():
    with pytest.raises(teml.ProgramError) as e:
        calls_plain_python(np.ones(3))
    assert e.value.line == line_of('with np.errstate(all="ignore"):')
    assert "not supported in teml programs: 'with' statements" in e.value.message
