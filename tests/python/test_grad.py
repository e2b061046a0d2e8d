"""teml.grad and teml.torch_function (docs/autodiff.md): gradients of a
@teml.transform function, as NumPy arrays or through PyTorch's autograd,
equal PyTorch autograd's on the same computation."""
import numpy as np
import pytest
import torch

import teml

N, F = 6, 5


@teml.transform
def layer(x: teml.Var[(N, F), "float64"], w: teml.Var[(F, F), "float64"], idx: teml.Var[(N,), "int32"],
          y: teml.Var[(N, F), "float64", "output"]):
    for i in range(N):
        h = teml.zeros((F,), "float64")
        for c in range(F):
            for k in range(F):
                h[c] += x[idx[i], k] * w[k, c]
        top = teml.full((), -float("inf"), "float64")
        for c in range(F):
            top[()] = max(top, h[c])
        for c in range(F):
            y[i, c] = teml.tanh(h[c] - top) + teml.sigmoid(h[c])


def torch_layer(x, w, idx):
    h = x[idx.long()] @ w
    return torch.tanh(h - h.max(dim=1, keepdim=True).values) + torch.sigmoid(h)


def inputs():
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal((N, F)), rng.standard_normal((F, F))
    idx = np.array([0, 2, 2, 5, 1, 0], np.int32)  # repeated rows: their gradients add up
    return x, w, idx


def torch_gradients(weights):
    x, w, idx = (torch.from_numpy(a) for a in inputs())
    x.requires_grad_(True)
    w.requires_grad_(True)
    (torch_layer(x, w, idx) * torch.from_numpy(weights)).sum().backward()
    return x.grad.numpy(), w.grad.numpy()


@pytest.mark.parametrize("tapes", ["auto", "all", "none"])
def test_forward_and_backward_on_numpy_arrays(tapes):
    forward, backward = teml.grad(layer, wrt=["x", "w"], of=["y"], tapes=tapes)
    x, w, idx = inputs()
    y = forward(x, w, idx)
    np.testing.assert_allclose(y, torch_layer(*(torch.from_numpy(a) for a in (x, w, idx))).numpy(), rtol=1e-12)
    weights = np.random.default_rng(5).standard_normal((N, F))
    dx, dw = backward(weights)
    want_dx, want_dw = torch_gradients(weights)
    np.testing.assert_allclose(dx, want_dx, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(dw, want_dw, rtol=1e-10, atol=1e-12)
    # A second backward after the same forward gives the same gradients.
    np.testing.assert_allclose(backward(weights)[1], dw)


def test_a_teml_kernel_trains_inside_a_torch_model():
    f = teml.torch_function(layer)
    x, w, idx = (torch.from_numpy(a) for a in inputs())
    w = w.clone().requires_grad_(True)
    x = x.clone().requires_grad_(True)
    loss = (f(x, w, idx) ** 2).sum()
    loss.backward()
    xt, wt = x.detach().clone().requires_grad_(True), w.detach().clone().requires_grad_(True)
    (torch_layer(xt, wt, idx) ** 2).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), wt.grad.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_an_integer_tensor_has_no_gradient():
    forward, _ = teml.grad(layer, wrt=["idx"], of=["y"])
    with pytest.raises(teml.ProgramError, match="'idx' holds int32 values"):
        forward(*inputs())
