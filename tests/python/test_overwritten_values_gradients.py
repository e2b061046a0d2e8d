"""Gradients of programs that overwrite values they read (issue 43, items 1
and 3) are the same on every path: `teml grad` on the command line,
teml.grad, teml.torch_function, every tape setting, and the CUDA target in
the emulator, and equal PyTorch autograd's on the same computation."""
import os
import pathlib
import subprocess

import numpy as np
import pytest
import torch

import teml

R, C = 5, 7
E = 9  # entries of the CSR rows
PTR = np.array([0, 2, 2, 5, 8, 9], np.int32)
TAPES = ["auto", "all", "none"]
TEML = os.environ.get("TEML_BINARY", str(pathlib.Path(__file__).resolve().parents[2] / "build" / "teml"))


@teml.transform
def halved_exp(x: teml.Var[(R, C), "float64"], y: teml.Var[(R, C), "float64", "output"]):
    for i in range(R):
        for j in range(C):
            y[i, j] = teml.exp(x[i, j])
            y[i, j] = y[i, j] / 2.0


@teml.transform
def softmax_in_place(x: teml.Var[(R, C), "float64"], y: teml.Var[(R, C), "float64", "output"]):
    for i in range(R):
        s = teml.zeros((), "float64")
        for j in range(C):
            y[i, j] = teml.exp(x[i, j])
            s[()] += y[i, j]
        for j in range(C):
            y[i, j] /= s


@teml.transform
def log_softmax_in_place(x: teml.Var[(R, C), "float64"], y: teml.Var[(R, C), "float64", "output"]):
    for i in range(R):
        top = teml.full((), -float("inf"), "float64")
        for j in range(C):
            top[()] = max(top, x[i, j])
        s = teml.zeros((), "float64")
        for j in range(C):
            y[i, j] = x[i, j] - top
            s[()] += teml.exp(y[i, j])
        for j in range(C):
            y[i, j] -= teml.log(s)


@teml.transform
def branch_on_overwritten(x: teml.Var[(R, C), "float64"], y: teml.Var[(R, C), "float64", "output"]):
    for i in range(R):
        for j in range(C):
            y[i, j] = x[i, j] * 1.0
            if y[i, j] > 0.0:
                y[i, j] = y[i, j] * x[i, j] - 1.0


@teml.transform
def branch_on_overwritten_local(x: teml.Var[(R, C), "float64"], y: teml.Var[(R, C), "float64", "output"]):
    for i in range(R):
        for j in range(C):
            t = teml.empty((), "float64")
            t[()] = x[i, j] * 1.0
            if t[()] > 0.0:
                t[()] = t[()] * x[i, j] - 1.0
            y[i, j] = t[()] * 3.0


def branch_reference(x):
    return torch.where(x > 0, x * x - 1.0, x)


REFERENCES = {
    halved_exp: lambda x: torch.exp(x) / 2.0,
    softmax_in_place: lambda x: torch.softmax(x, dim=1),
    log_softmax_in_place: lambda x: torch.log_softmax(x, dim=1),
    branch_on_overwritten: branch_reference,
    branch_on_overwritten_local: lambda x: branch_reference(x) * 3.0,
}
PROGRAMS = list(REFERENCES)
NAMES = [f.__name__ for f in PROGRAMS]


def data():
    rng = np.random.default_rng(43)
    x = rng.uniform(-2.0, 2.0, (R, C))
    x[0, :3] = [0.9, -0.5, 0.3]  # the values: d/dx of x * x - 1 at 0.9 is 1.8
    weights = rng.standard_normal((R, C))
    return x, weights


def torch_gradient(f, x, weights):
    t = torch.from_numpy(x.copy()).requires_grad_(True)
    (REFERENCES[f](t) * torch.from_numpy(weights)).sum().backward()
    return t.grad.numpy()


@pytest.mark.parametrize("tapes", TAPES)
@pytest.mark.parametrize("f", PROGRAMS, ids=NAMES)
def test_teml_grad_equals_pytorch(f, tapes):
    x, weights = data()
    forward, backward = teml.grad(f, wrt=["x"], of=["y"], tapes=tapes)
    y = forward(x)
    np.testing.assert_allclose(y, REFERENCES[f](torch.from_numpy(x)).numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(backward(weights), torch_gradient(f, x, weights), rtol=1e-10, atol=1e-12)
    # A second backward call over the same forward call starts from the same values.
    np.testing.assert_allclose(backward(weights), torch_gradient(f, x, weights), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("f", PROGRAMS, ids=NAMES)
def test_torch_function_equals_pytorch(f, tapes="auto"):
    x, weights = data()
    t = torch.from_numpy(x.copy()).requires_grad_(True)
    (teml.torch_function(f, tapes=tapes)(t) * torch.from_numpy(weights)).sum().backward()
    np.testing.assert_allclose(t.grad.numpy(), torch_gradient(f, x, weights), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("f", [halved_exp, branch_on_overwritten], ids=["halved_exp", "branch_on_overwritten"])
def test_the_cuda_target_in_the_emulator_equals_pytorch(f):
    x, weights = data()
    forward, backward = teml.grad(teml.transform(f.python, target="cuda", emulate=True), wrt=["x"], of=["y"])
    forward(x)
    np.testing.assert_allclose(backward(weights), torch_gradient(f, x, weights), rtol=1e-10, atol=1e-12)


# Every program with the default tapes; the branch with every setting (it fails under each without the condition's tape).
@pytest.mark.parametrize("f, tapes", [(f, "auto") for f in PROGRAMS] + [(branch_on_overwritten, "all"),
                                                                       (branch_on_overwritten, "none")],
                         ids=NAMES + ["branch_on_overwritten-all", "branch_on_overwritten-none"])
def test_the_command_line_equals_pytorch(f, tapes, tmp_path):
    x, weights = data()
    source = pathlib.Path(__file__).read_text()
    program = tmp_path / "program.py"
    # The transforms of this file alone, as a program file the CLI reads.
    program.write_text("import teml\n\nR, C, E = 5, 7, 9\n\n" + "\n\n".join(
        block for block in source.split("\n\n\n") if block.startswith("@teml.transform")))
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "w.npy", weights)
    run = subprocess.run([TEML, "grad", str(program), "--entry", f.__name__, "--wrt", "x", "--of", "y", "--tapes", tapes,
                          "--input", f"x={tmp_path / 'x.npy'}", "--input", f"y.grad={tmp_path / 'w.npy'}",
                          "--output", f"x.grad={tmp_path / 'g.npy'}", "--cache-dir", str(tmp_path / "cache"), "--verify"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    np.testing.assert_allclose(np.load(tmp_path / "g.npy"), torch_gradient(f, x, weights), rtol=1e-10, atol=1e-12)


@teml.transform
def csr_rows(ptr: teml.Var[(R + 1,), "int32"], x: teml.Var[(E,), "float64"], y: teml.Var[(E,), "float64", "output"],
             count: teml.Var[(), "int32", "inout"]):
    for i in range(R):
        for k in range(ptr[i], ptr[i + 1]):
            y[k] = x[k] * x[k]
            if count[()] < 2:
                count[()] += 1


@teml.transform
def csr_branch_on_overwritten(ptr: teml.Var[(R + 1,), "int32"], x: teml.Var[(E,), "float64"],
                              y: teml.Var[(E,), "float64", "output"]):
    for i in range(R):
        for k in range(ptr[i], ptr[i + 1]):
            y[k] = x[k] * 1.0
            if y[k] > 0.0:
                y[k] = y[k] * x[k] - 1.0


def test_a_branch_that_carries_no_gradient_is_not_kept():
    x = np.linspace(-1.0, 1.0, E)
    forward, backward = teml.grad(csr_rows, wrt=["x"], of=["y"], tapes="none")
    forward(PTR, x, np.zeros((), np.int32))
    np.testing.assert_allclose(backward(), 2 * x)


def test_a_condition_that_cannot_be_kept_is_refused_at_its_branch():
    forward, _ = teml.grad(csr_branch_on_overwritten, wrt=["x"], of=["y"])
    with pytest.raises(teml.ProgramError, match="branch's condition reads 'y', which the branch overwrites") as e:
        forward(PTR, np.linspace(-1.0, 1.0, E))
    assert e.value.line == csr_branch_on_overwritten.python.__code__.co_firstlineno + 6  # the `if` (from the decorator)
