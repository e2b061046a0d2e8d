"""A gradient pass's buffers (the inputs' copies, tapes, gradients) are
taken again by the next pass of the same program once the pass is gone
(python/teml/_grad.py): pages touched already instead of fresh ones. What
one pass leaves in them never reaches another: passes alive at the same
time keep their own, and a taken buffer is zeroed or overwritten first."""
import gc

import numpy as np
import torch

import teml

N, K, M = 6, 5, 7


@teml.transform
def layer(x: teml.Var[(N, K), "float64"], w: teml.Var[(K, M), "float64"]):
    y = teml.libop.matmul(x, w)
    return teml.libop.relu(y * y - 2.0)


def numpy_gradients(x, w):
    y = x @ w
    g = np.where(y * y - 2.0 > 0, 2 * y, 0.0)  # d relu(y^2 - 2) / dy, the output's weight 1
    return g @ w.T, x.T @ g


def inputs(seed):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((N, K)), rng.standard_normal((K, M))


def test_one_pass_after_another_takes_the_last_ones_buffers_and_gets_its_own_gradients():
    forward, backward = teml.grad(layer)
    taken = []
    for seed in range(4):
        x, w = inputs(seed)
        forward(x, w)
        gx, gw = backward()
        np.testing.assert_allclose(gx, numpy_gradients(x, w)[0], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(gw, numpy_gradients(x, w)[1], rtol=1e-12, atol=1e-12)
        taken.append(id(next(b for n, b in _buffers(forward).items() if n.endswith(".tape") or "grad" in n)))
    assert len(set(taken)) == 1, taken  # each pass takes the buffer the one before left


def test_passes_alive_together_keep_their_own_buffers():
    f = teml.torch_function(layer)
    (x1, w1), (x2, w2) = inputs(10), inputs(11)
    tx1, tx2 = torch.tensor(x1, requires_grad=True), torch.tensor(x2, requires_grad=True)
    tw = torch.tensor(w1, requires_grad=True)
    (f(tx1, tw).sum() + 2 * f(tx2, tw).sum()).backward()  # both passes' buffers alive until here
    np.testing.assert_allclose(tx1.grad.numpy(), numpy_gradients(x1, w1)[0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(tx2.grad.numpy(), 2 * numpy_gradients(x2, w1)[0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(tw.grad.numpy(), numpy_gradients(x1, w1)[1] + 2 * numpy_gradients(x2, w1)[1],
                               rtol=1e-12, atol=1e-12)
    gc.collect()


def test_the_outputs_a_caller_holds_are_never_taken():
    forward, backward = teml.grad(layer)
    x1, w1 = inputs(20)
    first = forward(x1, w1)
    kept = first.copy()
    for seed in (21, 22):
        forward(*inputs(seed))
        backward()
    np.testing.assert_array_equal(first, kept)


def test_every_buffer_of_a_pass_starts_on_a_cache_line():
    # The kernels' 64-byte vector loads of a 16-byte-aligned NumPy array
    # would cross a line every other load (attention's gradient: 10-15%).
    forward, backward = teml.grad(layer)
    for seed in range(2):  # fresh buffers, then taken ones
        x, w = inputs(seed)
        forward(x, w)
        backward()
        for name, b in _buffers(forward).items():
            assert b.ctypes.data % 64 == 0, name


def _buffers(forward):
    """The latest pass's buffers (the closure's state)."""
    state = next(c.cell_contents for c in forward.__closure__ if isinstance(c.cell_contents, dict))
    return state["pass"].buffers
