"""Gradients of updates whose value reads their own target (`t += t * v`,
`y *= y`): the gradient that reached the target is taken before the
update's adjoints add to it (found by the fuzz oracle, seeds 1008 and
1055), under every tape setting, against PyTorch."""
import numpy as np
import pytest
import torch

import teml

N = 6


@teml.transform
def add_own_product(v: teml.Var[(N,), "float64"], y: teml.Var[(N,), "float64", "output"]):
    for i in range(N):
        t = teml.zeros((), "float64")
        t[()] = v[i]
        t[()] += t[()] * v[i]
        y[i] = t[()]


@teml.transform
def square_in_place(x: teml.Var[(N,), "float64"], y: teml.Var[(N,), "float64", "output"]):
    for i in range(N):
        y[i] = x[i]
        y[i] *= y[i]


@teml.transform
def scale_in_place(x: teml.Var[(N,), "float64"], y: teml.Var[(N,), "float64", "output"]):
    for i in range(N):
        y[i] = x[i] + 1.0
        y[i] *= x[i]


REFERENCES = {add_own_product: lambda v: v + v * v, square_in_place: lambda x: x * x,
              scale_in_place: lambda x: (x + 1.0) * x}


@pytest.mark.parametrize("tapes", ["auto", "all", "none"])
@pytest.mark.parametrize("f", list(REFERENCES), ids=[f.__name__ for f in REFERENCES])
def test_the_gradient_equals_pytorch(f, tapes):
    rng = np.random.default_rng(1008)
    x, w = rng.standard_normal(N), rng.standard_normal(N)
    forward, backward = teml.grad(f, of=["y"], tapes=tapes)
    forward(x)
    t = torch.from_numpy(x.copy()).requires_grad_(True)
    (REFERENCES[f](t) * torch.from_numpy(w)).sum().backward()
    np.testing.assert_allclose(backward(w), t.grad.numpy(), rtol=1e-12, atol=1e-14)
