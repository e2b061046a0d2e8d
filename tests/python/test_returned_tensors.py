"""An entry function returns its results, as FreeTensor's programs end:
`return y`, `return y, z` or `return {"name": y}`, each a tensor the
function makes. Python gets back what it returns; the CLI, gradients and
PyTorch name each result by its variable (or the dict's key)."""
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest
import torch

import teml

TEML = os.environ.get("TEML_BINARY", str(pathlib.Path(__file__).resolve().parents[2] / "build" / "teml"))

SOURCE = '''from __future__ import annotations
import teml
from teml import libop


@teml.transform
def one(a: teml.Var[(n,), "float32"], b: teml.Var[(n,), "float32"]):
    y = teml.empty((n,), "float32")
    for i in range(n):
        y[i] = a[i] * b[i]
    return y


@teml.transform
def several(a: teml.Var[(n, m), "float32"], b: teml.Var[(m, k), "float32"]):
    prod = libop.matmul(a, b)
    rows = teml.zeros((n,), "float32")
    for i in range(n):
        for j in range(k):
            rows[i] += prod[i, j]
    return prod, rows


@teml.transform
def by_name(a: teml.Var[(n, m), "float32"], b: teml.Var[(m, k), "float32"]):
    prod = libop.matmul(a, b)
    return {"prod": prod, "twice": prod * 2.0, "first_row": prod[0]}
'''


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    path = tmp_path_factory.mktemp("returned") / "returned_programs.py"
    path.write_text(SOURCE)
    sys.path.insert(0, str(path.parent))
    import returned_programs
    yield returned_programs
    sys.path.remove(str(path.parent))


def test_one_returned_tensor_is_the_result(programs):
    a, b = np.arange(5, dtype=np.float32), np.full(5, 3, np.float32)
    np.testing.assert_array_equal(programs.one(a, b), a * b)


def test_a_tuple_comes_back_as_a_tuple(programs):
    rng = np.random.default_rng(0)
    a, b = rng.random((4, 3), np.float32), rng.random((3, 7), np.float32)
    prod, rows = programs.several(a, b)
    np.testing.assert_allclose(prod, a @ b, rtol=1e-5)
    np.testing.assert_allclose(rows, (a @ b).sum(1), rtol=1e-5)


def test_a_dict_comes_back_as_a_dict_and_parts_and_expressions_are_copies(programs):
    rng = np.random.default_rng(1)
    a, b = rng.random((4, 3), np.float32), rng.random((3, 7), np.float32)
    out = programs.by_name(a, b)
    assert list(out) == ["prod", "twice", "first_row"]
    np.testing.assert_allclose(out["twice"], 2 * (a @ b), rtol=1e-5)
    np.testing.assert_allclose(out["first_row"], (a @ b)[0], rtol=1e-5)


@pytest.mark.parametrize("tapes", ["all", "none", "auto"])
def test_gradients_of_a_returned_tensor(programs, tapes):
    rng = np.random.default_rng(2)
    a, b = rng.random((4, 3), np.float32), rng.random((3, 7), np.float32)
    forward, backward = teml.grad(programs.several, wrt=["a", "b"], of=["rows"], tapes=tapes)
    forward(a, b)
    ga, gb = backward(None)
    np.testing.assert_allclose(ga, np.ones((4, 7)) @ b.T, rtol=1e-5)
    np.testing.assert_allclose(gb, a.T @ np.ones((4, 7)), rtol=1e-5)


def test_pytorch_autograd_through_a_returned_dict(programs):
    a = torch.rand(4, 3, requires_grad=True)
    b = torch.rand(3, 7, requires_grad=True)
    out = teml.torch_function(programs.by_name)(a, b)
    (out["twice"].sum() + out["first_row"].sum()).backward()
    a2, b2 = a.detach().clone().requires_grad_(), b.detach().clone().requires_grad_()
    ((2 * (a2 @ b2)).sum() + (a2 @ b2)[0].sum()).backward()
    torch.testing.assert_close(a.grad, a2.grad)
    torch.testing.assert_close(b.grad, b2.grad)


def test_the_gpu_emulator_returns_the_same(programs):
    rng = np.random.default_rng(3)
    a, b = rng.random((4, 3), np.float32), rng.random((3, 7), np.float32)
    on_gpu = teml.transform(programs.several.python, target="cuda", emulate=True)
    prod, rows = on_gpu(a, b)
    np.testing.assert_allclose(rows, (a @ b).sum(1), rtol=1e-5)


def test_the_cli_names_a_returned_tensor_by_its_variable(programs, tmp_path):
    np.save(tmp_path / "a.npy", np.arange(12, dtype=np.float32).reshape(4, 3))
    np.save(tmp_path / "b.npy", np.ones((3, 2), np.float32))
    r = subprocess.run([TEML, "run", programs.__file__, "--entry", "several", "--input", f"a={tmp_path / 'a.npy'}",
                        "--input", f"b={tmp_path / 'b.npy'}", "--output", f"rows={tmp_path / 'rows.npy'}", "--verify"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "rows.npy"), [6, 24, 42, 60])


@pytest.mark.parametrize("body, message", [
    ("    for i in range(n):\n        return a\n", "'return' inside a loop"),
    ("    return a\n", "returns 'a', which is a parameter"),
    ("    y = teml.zeros((n,), 'float32')\n    return {'y': y, 'y': y}\n", "two outputs named 'y'"),
])
def test_what_cannot_be_returned_is_named(tmp_path, body, message):
    path = tmp_path / "bad.py"
    path.write_text("import teml\n\n@teml.transform\ndef f(a: teml.Var[(n,), 'float32']):\n" + body)
    r = subprocess.run([TEML, "run", str(path), "--set", "n=4"], capture_output=True, text=True)
    assert r.returncode == 1 and message in r.stderr, r.stderr
