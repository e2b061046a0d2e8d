"""A module-level integer is a size fixed when the program compiles
(FreeTensor's style): an argument of another size is a ValueError that names
the parameter, its shape and the argument's, and the line that fixes the
size, never an option of the teml command."""
import numpy as np
import pytest

import teml

n = 3


@teml.transform
def add_one(x: teml.Var[(n,), "float32"], y: teml.Var[(n,), "float32", "output"]):
    for i in range(n):
        y[i] = x[i] + 1.0


def test_the_size_the_module_fixes_is_used():
    np.testing.assert_array_equal(add_one(np.zeros(3, np.float32)), np.ones(3, np.float32))


def test_an_argument_of_another_size_names_the_line_that_fixes_it():
    with pytest.raises(ValueError) as e:
        add_one(np.zeros(4, np.float32))
    assert str(e.value) == f"parameter 'x' of add_one has shape (n,) = (3,) (n = 3 at {__file__}:10), not (4,)"
    assert "--set" not in str(e.value)
