"""teml's CUDA target from Python, without a GPU: arrays in GPU memory are
recognised by their __cuda_array_interface__ (here objects that only carry
one) and checked as the GPU would need them, before anything runs; with no
driver the call stops with teml.DeviceUnavailable; NumPy arrays run on the
GPU emulator with emulate=True and give the CPU's results."""
from __future__ import annotations

import numpy as np
import pytest

import teml


@teml.transform
def gather(x: teml.Var[(F, C), "float32"], adj: teml.Var[(F, 3), "int32"],
           y: teml.Var[(F, C), "float32", "output"]):
    for i in range(F):
        for p in range(3):
            y[i] += abs(x[adj[i, p]] - x[i])


@teml.transform
def bump(a: teml.Var[(n,), "int64", "inout"]):
    for i in range(n):
        a[i] = a[i] + 1


class GpuArray:
    """Memory on a GPU as a producer describes it (CUDA Array Interface v3);
    nothing behind the pointer."""

    def __init__(self, shape, typestr, strides=None, readonly=False, stream=None):
        self.__cuda_array_interface__ = {"shape": tuple(shape), "typestr": np.dtype(typestr).str, "strides": strides,
                                         "data": (0x7f0000000000, readonly), "version": 3}
        if stream is not None:
            self.__cuda_array_interface__["stream"] = stream


def arguments():
    return GpuArray((10, 4), "float32"), GpuArray((10, 3), "int32")


def test_arrays_in_gpu_memory_pass_every_check_and_reach_the_driver():
    x, adj = arguments()
    with pytest.raises(teml.DeviceUnavailable, match="no CUDA driver|finds no GPU"):
        gather(x, adj, out=GpuArray((10, 4), "float32"))


def test_a_wrong_element_type_names_the_parameter():
    x, _ = arguments()
    with pytest.raises(TypeError, match="parameter 'adj' of gather is int32, not int64"):
        gather(x, GpuArray((10, 3), "int64"), out=GpuArray((10, 4), "float32"))


def test_a_wrong_shape_of_an_output_is_refused():
    x, adj = arguments()
    with pytest.raises(ValueError, match=r"parameter 'y' of gather has shape \(10, 4\), not \(4, 10\)"):
        gather(x, adj, out=GpuArray((4, 10), "float32"))


def test_gpu_memory_must_be_c_contiguous():
    _, adj = arguments()
    transposed = GpuArray((10, 4), "float32", strides=(4, 40))
    with pytest.raises(ValueError, match="parameter 'x' of gather must be C-contiguous in GPU memory"):
        gather(transposed, adj, out=GpuArray((10, 4), "float32"))
    with pytest.raises(teml.DeviceUnavailable):  # C strides given explicitly are C-contiguous
        gather(GpuArray((10, 4), "float32", strides=(16, 4)), adj, out=GpuArray((10, 4), "float32"))


def test_an_updated_parameter_cannot_be_read_only_memory():
    with pytest.raises(ValueError, match="parameter 'a' of bump is written: its GPU memory must not be read-only"):
        bump(GpuArray((8,), "int64", readonly=True))


def test_host_and_gpu_arrays_do_not_mix():
    x, _ = arguments()
    with pytest.raises(ValueError, match=r"arrays in GPU memory and arrays on the host \(adj\)"):
        gather(x, np.zeros((10, 3), np.int32))


def test_outputs_on_the_gpu_are_made_by_pytorch_or_given():
    x, adj = arguments()
    with pytest.raises(TypeError, match="the output 'y' of gather on the GPU is made by PyTorch"):
        gather(x, adj)


def test_a_transform_for_the_cpu_refuses_gpu_memory():
    cpu = teml.transform(gather.python, target="cpu")
    x, adj = arguments()
    with pytest.raises(ValueError, match='made with target="cpu"'):
        cpu(x, adj, out=GpuArray((10, 4), "float32"))


def test_the_emulator_gives_the_cpus_results_on_numpy_arrays():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((50, 8)).astype(np.float32)
    adj = rng.integers(0, 50, (50, 3)).astype(np.int32)
    emulated = teml.transform(gather.python, target="cuda", emulate=True)
    np.testing.assert_allclose(emulated(x, adj), gather(x, adj), rtol=1e-6)
    a = np.arange(7, dtype=np.int64)
    teml.transform(bump.python, target="cuda", emulate=True)(a)
    np.testing.assert_array_equal(a, np.arange(1, 8))


def test_numpy_arrays_on_a_gpu_target_without_a_gpu_stop_with_device_unavailable():
    on_gpu = teml.transform(gather.python, target="cuda")
    with pytest.raises(teml.DeviceUnavailable, match="--emulate"):
        on_gpu(np.zeros((5, 2), np.float32), np.zeros((5, 3), np.int32))


def test_targets_and_emulation_are_named_correctly():
    with pytest.raises(ValueError, match='target must be "cpu" or "cuda"'):
        teml.transform(gather.python, target="gpu")
    with pytest.raises(ValueError, match='give target="cuda"'):
        teml.transform(gather.python, emulate=True)
