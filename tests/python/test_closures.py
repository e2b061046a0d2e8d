"""A @teml.transform defined inside a function (FreeTensor's tests do so)
reads names its source does not define from the function around it:
numbers become constants, functions are inlined, other values are a
teml.ProgramError naming it."""
import numpy as np
import pytest

import teml

n = 1000  # a module size the enclosing function's n hides


def test_sizes_constants_and_helpers_come_from_the_enclosing_function():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    n, m = x.shape
    scale = 2.5

    def times_scale(v):
        return v * scale

    @teml.transform
    def row_sums(a: teml.Var[(n, m), "float32"], y: teml.Var[(n,), "float32", "output"]):
        for i in range(n):
            for j in range(m):
                y[i] += times_scale(a[i, j])

    np.testing.assert_allclose(row_sums(x), x.sum(1) * 2.5)


def test_other_values_are_a_clear_error():
    weights = [1, 2]

    @teml.transform
    def g(a: teml.Var[(4,), "float32"], y: teml.Var[(4,), "float32", "output"]):
        y[0] = weights

    with pytest.raises(teml.ProgramError) as e:
        g(np.zeros(4, np.float32))
    assert "'weights' is list from the function around 'g'" in e.value.message
    assert (e.value.file, e.value.line) == (__file__, g.python.__code__.co_firstlineno + 2)


def test_errors_point_at_the_column_where_the_nested_function_is_written():
    @teml.transform
    def shifted(x: teml.Var[(4,), "float32"], y: teml.Var[(4,), "float32", "output"]):
        for i in range(4):
            y[i] = x[i + 1]

    with pytest.raises(teml.ProgramError) as e:
        shifted(np.ones(4, np.float32))
    line = shifted.python.__code__.co_firstlineno + 3
    assert (e.value.line, e.value.column) == (line, 22)
