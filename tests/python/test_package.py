"""import teml: free-form functions called from Python on NumPy arrays."""
import importlib.util
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import teml

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import kernels  # noqa: E402

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples" / "freetensor"
rng = np.random.default_rng(1)


def test_a_transform_returns_numpys_result_and_runs_under_plain_python():
    x = rng.standard_normal((50, 8)).astype(np.float32)
    adj = rng.integers(0, 50, (50, 3)).astype(np.int32)
    want = np.abs(x[adj] - x[:, None, :]).sum(1)
    np.testing.assert_allclose(kernels.mesh_gather(x, adj), want, rtol=1e-5)
    # The undecorated function, run by Python itself on NumPy arrays (sizes as Python names).
    kernels.F, kernels.C = 50, 8
    y = np.zeros_like(x)
    kernels.mesh_gather.python(x, adj, y)
    np.testing.assert_allclose(y, want, rtol=1e-5)
    del kernels.F, kernels.C


def test_inout_parameters_are_updated_in_place_and_outputs_returned():
    a = rng.standard_normal((6, 4))
    w = rng.standard_normal(6)
    before = a.copy()
    total = kernels.scale_rows(a, w=w)
    np.testing.assert_allclose(a, before * w[:, None])
    assert total.shape == () and np.isclose(total, (before * w[:, None]).sum())
    assert "parallel" in kernels.scale_rows.ir()
    assert "#pragma omp parallel" in kernels.scale_rows.c_source()


def test_compiled_once_per_shape():
    x = rng.standard_normal((20, 4)).astype(np.float32)
    adj = np.zeros((20, 3), np.int32)
    kernels.mesh_gather(x, adj)
    kernels.mesh_gather(x, adj)
    kernels.mesh_gather(x[:10].copy(), adj[:10].copy())
    assert "compiled for" in repr(kernels.mesh_gather)
    assert len(kernels.mesh_gather._compiled) >= 2


def test_wrong_arguments_name_the_parameter():
    x = rng.standard_normal((20, 4))
    adj = np.zeros((20, 3), np.int32)
    with pytest.raises(TypeError, match="parameter 'x' of mesh_gather is float32, not float64"):
        kernels.mesh_gather(x, adj)
    with pytest.raises(TypeError, match="is missing parameter 'adj'"):
        kernels.mesh_gather(x.astype(np.float32))
    a = np.zeros((4, 6)).T  # not C-contiguous: a copy would not be updated
    with pytest.raises(ValueError, match="parameter 'a' of scale_rows is updated in place"):
        kernels.scale_rows(a, np.ones(6))
    with pytest.raises(ValueError, match=r"parameter 'adj' of mesh_gather has shape \(F, 3\) = \(20, 3\) "
                                         r"\(F = 20 from the shape of 'x'\), not \(19, 3\)"):
        kernels.mesh_gather(x.astype(np.float32), np.zeros((19, 3), np.int32))


def test_an_index_out_of_range_raises_program_error_at_its_line():
    x = np.zeros((5, 2), np.float32)
    adj = np.full((5, 3), 7, np.int32)
    with pytest.raises(teml.ProgramError) as e:
        kernels.mesh_gather(x, adj)
    assert (e.value.line, e.value.column) == (18, 27)
    assert e.value.file.endswith("kernels.py")
    assert "index 7 out of range [0, 5) for dimension 0 of 'x'" in str(e.value)


def test_a_wrong_program_raises_program_error_with_its_line(tmp_path):
    module = tmp_path / "bad_kernel.py"
    module.write_text(textwrap.dedent("""\
        from __future__ import annotations
        import teml

        @teml.transform
        def f(x: teml.Var[(4,), "float64"], y: teml.Var[(4,), "float64", "output"]):
            for i in range(4):
                y[i] = x[i] + undefined_name
        """))
    spec = importlib.util.spec_from_file_location("bad_kernel", module)
    bad = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bad)
    with pytest.raises(teml.ProgramError) as e:
        bad.f(np.zeros(4))
    assert e.value.line == 7 and "unknown name 'undefined_name'" in e.value.message
    assert str(e.value).startswith(f"{module}:7:")


def test_threads_and_several_transforms_in_one_process():
    kernels.scale_rows.threads = 1
    a = np.ones((6, 3))
    assert np.isclose(kernels.scale_rows(a, np.full(6, 2.0)), 36)
    kernels.scale_rows.threads = None
    x = np.ones((7, 2), np.float32)
    assert kernels.mesh_gather(x, np.zeros((7, 3), np.int32)).sum() == 0


def test_the_kernel_cache_serves_a_second_process(tmp_path):
    script = tmp_path / "once.py"
    script.write_text(textwrap.dedent(f"""\
        import sys
        sys.path.insert(0, {str(pathlib.Path(__file__).parent)!r})
        import numpy as np, kernels
        print(kernels.mesh_gather(np.ones((9, 2), np.float32), np.zeros((9, 3), np.int32)).sum())
        """))
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin"}
    import os
    env["PYTHONPATH"] = os.environ.get("PYTHONPATH", "")
    for _ in range(2):
        r = subprocess.run(["/usr/bin/python3", str(script)], capture_output=True, text=True, env=env)
        assert r.returncode == 0, r.stderr
    kernels_built = list((tmp_path / "cache").rglob("k*.so"))
    assert len(kernels_built) == 1


def _example(name):
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name,entry", [("subdivnet", "subdivnet_conv"), ("longformer", "longformer"),
                                        ("softras", "soft_rasterize"), ("gat", "gat_layer")])
def test_the_four_workloads_called_from_python(name, entry):
    make_inputs, reference = _example("make_inputs"), _example("reference")
    inputs = make_inputs.WORKLOADS[name](np.random.default_rng(3), small=True)
    got = getattr(_example(name), entry)(**inputs)
    np.testing.assert_allclose(got, getattr(reference, name)(**inputs), rtol=2e-4, atol=2e-4)


def test_pytorch_tensors_in_and_out():
    import torch
    x = torch.randn(30, 4)
    adj = torch.randint(0, 30, (30, 3), dtype=torch.int32)
    y = kernels.mesh_gather(x, adj)
    assert isinstance(y, torch.Tensor)
    want = (x[adj.long()] - x[:, None, :]).abs().sum(1)
    assert torch.allclose(y, want, atol=1e-5)


def test_a_transform_made_again_from_a_decorated_one_is_made_from_its_function():
    x = np.random.default_rng(4).random((30, 4)).astype(np.float32)
    adj = np.random.default_rng(5).integers(0, 30, (30, 3)).astype(np.int32)
    in_emulator = teml.transform(kernels.mesh_gather, target="cuda", emulate=True)
    np.testing.assert_allclose(in_emulator(x, adj), kernels.mesh_gather(x, adj), rtol=1e-6)
