"""Gradients on the CUDA target from Python, without a GPU: the gradient
program scheduled for the GPU gives the CPU's gradients in teml's
emulator, with every tape choice; arrays in GPU memory are checked before
anything runs (PyTorch CUDA tensors hold the buffers between the passes)."""
from __future__ import annotations

import numpy as np
import pytest

import teml
from test_cuda import GpuArray, gather


@teml.transform
def scores(x: teml.Var[(N, C), "float32"], w: teml.Var[(C,), "float32"], y: teml.Var[(N,), "float32", "output"]):
    for i in range(N):
        s = teml.zeros((), "float32")
        for c in range(C):
            s[()] += x[i, c] * w[c]
        top = teml.full((), -float("inf"), "float32")
        for c in range(C):
            top[()] = max(top, x[i, c])
        y[i] = teml.exp(s - top)


def gather_inputs():
    rng = np.random.default_rng(4)
    return rng.standard_normal((40, 8)).astype(np.float32), rng.integers(0, 40, (40, 3)).astype(np.int32)


@pytest.mark.parametrize("tapes", ["auto", "all", "none"])
def test_a_gradient_scheduled_for_the_gpu_gives_the_cpus_in_the_emulator(tapes):
    x, adj = gather_inputs()
    weights = np.random.default_rng(5).standard_normal((40, 8)).astype(np.float32)
    forward, backward = teml.grad(gather, tapes=tapes)
    want_y, want = forward(x, adj), backward(weights)
    forward, backward = teml.grad(teml.transform(gather.python, target="cuda", emulate=True), tapes=tapes)
    np.testing.assert_allclose(forward(x, adj), want_y, rtol=1e-6)
    np.testing.assert_allclose(backward(weights), want, rtol=1e-5, atol=1e-6)


def test_reductions_and_a_maximum_differentiate_alike_on_both_targets():
    rng = np.random.default_rng(6)
    x, w = rng.standard_normal((33, 16)).astype(np.float32), rng.standard_normal(16).astype(np.float32)
    forward, backward = teml.grad(scores)
    forward(x, w)
    want = backward()
    forward, backward = teml.grad(teml.transform(scores.python, target="cuda", emulate=True))
    forward(x, w)
    for got, expected in zip(backward(), want):
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def test_gpu_memory_other_than_pytorchs_is_refused_before_anything_runs():
    forward, _ = teml.grad(gather)
    with pytest.raises(TypeError, match="keeps its tensors in PyTorch"):
        forward(GpuArray((10, 4), "float32"), GpuArray((10, 3), "int32"))


def test_host_and_gpu_arrays_do_not_mix_in_a_gradient():
    forward, _ = teml.grad(gather)
    with pytest.raises(ValueError, match=r"arrays on the host \(adj\)"):
        forward(GpuArray((10, 4), "float32"), np.zeros((10, 3), np.int32))


def test_a_gradient_for_the_cpu_or_the_emulator_refuses_gpu_memory():
    for made in (teml.transform(gather.python, target="cpu"), teml.transform(gather.python, target="cuda", emulate=True)):
        forward, _ = teml.grad(made)
        with pytest.raises(ValueError, match='target="cpu"|the emulator'):
            forward(GpuArray((10, 4), "float32"), GpuArray((10, 3), "int32"))


def test_numpy_arrays_for_a_gpu_gradient_without_a_gpu_stop_with_device_unavailable():
    forward, _ = teml.grad(teml.transform(gather.python, target="cuda"))
    with pytest.raises(teml.DeviceUnavailable):
        forward(*gather_inputs())
