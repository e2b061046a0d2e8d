"""A PyTorch tensor that requires grad, passed to a plain @teml.transform,
is refused with a TypeError naming teml.torch_function (a plain call does
not record gradients: they would be lost without a word). Without autograd
(detached, torch.no_grad()) the call runs, and teml.torch_function(f)
differentiates through f."""
from __future__ import annotations

import numpy as np
import pytest

import teml

torch = pytest.importorskip("torch")


@teml.transform
def double(x: teml.Var[(n,), "float64"], y: teml.Var[(n,), "float64", "output"]):
    for i in range(n):
        y[i] = x[i] * 2.0


def test_a_tensor_that_requires_grad_is_refused_naming_torch_function():
    x = torch.ones(3, dtype=torch.float64, requires_grad=True)
    with pytest.raises(TypeError) as e:
        double(x)
    assert "parameter 'x' of double is a PyTorch tensor that requires grad" in str(e.value)
    assert "teml.torch_function(double)" in str(e.value)


def test_without_autograd_the_call_runs():
    x = torch.ones(3, dtype=torch.float64, requires_grad=True)
    np.testing.assert_allclose(double(x.detach()).numpy(), 2.0)
    with torch.no_grad():
        np.testing.assert_allclose(double(x).numpy(), 2.0)


def test_torch_function_differentiates_through_the_transform():
    x = torch.ones(3, dtype=torch.float64, requires_grad=True)
    teml.torch_function(double)(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2.0)
