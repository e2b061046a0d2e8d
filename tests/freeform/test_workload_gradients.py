"""The four workloads' gradients (`teml grad`, docs/autodiff.md) equal
PyTorch autograd's through the PyTorch baselines (bench/freetensor/
torch_layers.py), at small sizes: SubdivNet with respect to its features
and weights, Longformer to Q, K and V, SoftRas to the vertices, GAT to the
features, the weight and the attention vectors. Both the programs written
for speed (examples/freetensor) and the programs as FreeTensor's users
write them (examples/freetensor/as_written: in-place softmaxes, locals
written in branches of helpers), the latter under every --tapes setting."""
import importlib.util

import numpy as np
import pytest
import torch

from conftest import EXAMPLES

spec = importlib.util.spec_from_file_location("torch_layers", EXAMPLES.parents[1] / "bench" / "freetensor" / "torch_layers.py")
layers = importlib.util.module_from_spec(spec)
spec.loader.exec_module(layers)
spec = importlib.util.spec_from_file_location("make_inputs", EXAMPLES / "make_inputs.py")
make_inputs = importlib.util.module_from_spec(spec)
spec.loader.exec_module(make_inputs)

WORKLOADS = [
    ("subdivnet", "y", ["e", "w0", "w1", "w2", "w3"]),
    ("longformer", "y", ["q", "k", "v"]),
    ("softras", "prob", ["faces"]),
    ("gat", "y", ["feat", "weight", "attn_l", "attn_r"]),
]


def expect_pytorch_gradients(teml, program, name, output, wrt, extra=()):
    inputs = make_inputs.WORKLOADS[name](np.random.default_rng(5), small=True)
    got = teml.run(program, inputs, [f"{x}.grad" for x in wrt], command="grad",
                   extra=["--wrt", ",".join(wrt), "--of", output, *extra])
    tensors = {k: torch.from_numpy(v).long() if v.dtype == np.int32 else torch.from_numpy(v).clone() for k, v in inputs.items()}
    for x in wrt:
        tensors[x].requires_grad_(True)
    layer = getattr(layers, name + "_for_autograd", getattr(layers, name))
    layer(**tensors).sum().backward()
    for x in wrt:
        want = tensors[x].grad.numpy()
        scale = max(np.abs(want).max(), 1e-6)
        np.testing.assert_allclose(got[f"{x}.grad"] / scale, want / scale, atol=2e-4, err_msg=f"{name}: {x}.grad")


@pytest.mark.parametrize("name,output,wrt", WORKLOADS)
def test_gradients_equal_pytorch_autograd(teml, name, output, wrt):
    expect_pytorch_gradients(teml, EXAMPLES / f"{name}.py", name, output, wrt)


@pytest.mark.parametrize("tapes", ["all", "none", "auto"])
@pytest.mark.parametrize("name,output,wrt", WORKLOADS)
def test_gradients_as_users_write_them_equal_pytorch_autograd(teml, name, output, wrt, tapes):
    expect_pytorch_gradients(teml, EXAMPLES / "as_written" / f"{name}.py", name, output, wrt, ["--tapes", tapes])


@pytest.mark.parametrize("name,output,wrt", [w for w in WORKLOADS if w[0] in ("subdivnet", "gat")])
def test_gradients_on_the_gpu_target_in_the_emulator_equal_pytorch_autograd(teml, name, output, wrt):
    # teml grad --target cuda: both passes scheduled for the GPU, every kernel
    # run in the emulator (races checked), the result against PyTorch.
    # (Longformer's and SoftRas's take minutes in the emulator: their forward
    # passes are checked in test_gpu_workloads.py.)
    expect_pytorch_gradients(teml, EXAMPLES / f"{name}.py", name, output, wrt,
                             ["--no-schedule", "--target", "cuda", "--emulate"])


@pytest.mark.parametrize("tapes", ["all", "none"])
def test_gpu_scheduled_gradients_under_every_tape_choice_equal_pytorch_autograd(teml, tapes):
    # The GPU schedule of the backward pass differs with what is taped
    # (recomputed values read inside kernels instead of stored ones).
    expect_pytorch_gradients(teml, EXAMPLES / "gat.py", "gat", "y", ["feat", "weight", "attn_l", "attn_r"],
                             ["--no-schedule", "--target", "cuda", "--emulate", "--tapes", tapes])
