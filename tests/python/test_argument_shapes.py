"""A wrongly shaped argument is a ValueError naming the parameter, the shape
its annotation gives (with the sizes known so far) and the argument's
shape, before anything is compiled; never the teml command's wording
("give --set n=N")."""
from __future__ import annotations

import numpy as np
import pytest

import teml


@teml.transform
def scale_rows(x: teml.Var[(n, m), "float64"], w: teml.Var[(m,), "float64"], t: teml.Var[(2,), "float64"],
               y: teml.Var[(n, m), "float64", "output"]):
    for i in range(n):
        for j in range(m):
            y[i, j] = x[i, j] * w[j] + t[0]


def call(x_shape, w_shape, t_shape=(2,)):
    return scale_rows(np.ones(x_shape), np.ones(w_shape), np.ones(t_shape))


def test_right_shapes_run():
    np.testing.assert_allclose(call((4, 3), (3,)), np.full((4, 3), 2.0))


def test_a_wrong_number_of_dimensions_names_the_parameter_and_both_shapes():
    with pytest.raises(ValueError) as e:
        call((4,), (3,))
    assert str(e.value) == "parameter 'x' of scale_rows has shape (n, m), 2 dimension(s); the argument has shape (4,)"
    assert "--set" not in str(e.value)


def test_a_size_another_argument_gave_differently():
    with pytest.raises(ValueError) as e:
        call((4, 3), (5,))
    assert str(e.value) == "parameter 'w' of scale_rows has shape (m,) = (3,) (m = 3 from the shape of 'x'), not (5,)"


def test_a_fixed_dimension():
    with pytest.raises(ValueError) as e:
        call((4, 3), (3,), (3,))
    assert str(e.value) == "parameter 't' of scale_rows has shape (2,), not (3,)"


def test_gradients_name_a_wrongly_shaped_argument_too():
    forward, _ = teml.grad(scale_rows, wrt=["x"], of=["y"])
    with pytest.raises(ValueError, match=r"parameter 'w' of scale_rows has shape \(m,\) = \(3,\)"):
        forward(np.ones((4, 3)), np.ones(5), np.ones(2))
