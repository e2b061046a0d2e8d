"""A size used only inside a shape expression is solved from the input that
has that shape: CSR's row pointers `ptr: (R + 1,)` give R, with no --set;
an input no size can match, and a size nothing gives, are named."""
import pathlib
import subprocess

import numpy as np
import scipy_free_csr as csr

from conftest import TEML, Teml

PROGRAM = '''from __future__ import annotations
import numpy as np
import teml


@teml.transform
def spmv(ptr: teml.Var[(R + 1,), "int32"], idx: teml.Var[(E,), "int32"], val: teml.Var[(E,), "float64"],
         x: teml.Var[(C,), "float64"], y: teml.Var[(R,), "float64", "output"]):
    for i in range(R):
        for k in range(ptr[i], ptr[i + 1]):
            y[i] += val[k] * x[idx[k]]
'''


def test_csr_rows_come_from_the_row_pointers(tmp_path):
    ptr, idx, val, x = csr.random_csr(rows=37, cols=23, seed=1)
    out = Teml(tmp_path).run(PROGRAM, {"ptr": ptr, "idx": idx, "val": val, "x": x}, ["y"])
    np.testing.assert_allclose(out["y"], csr.spmv(ptr, idx, val, x), rtol=1e-12)


def test_an_affine_expression_is_solved_and_checked(tmp_path):
    program = PROGRAM.replace("(R + 1,)", "(2 * R + 1,)")
    ptr, idx, val, x = csr.random_csr(rows=4, cols=5, seed=2)
    ptr2 = np.concatenate([ptr, np.full(4, ptr[-1], np.int32)])  # 9 = 2 * 4 + 1 entries
    out = Teml(tmp_path).run(program, {"ptr": ptr2, "idx": idx, "val": val, "x": x}, ["y"])
    np.testing.assert_allclose(out["y"], csr.spmv(ptr, idx, val, x), rtol=1e-12)
    r = Teml(tmp_path).attempt(program, {"ptr": ptr2[:-1], "idx": idx, "val": val, "x": x}, ["y"])
    assert r.returncode == 2
    assert "the input for 'ptr' has 8 in dimension 0, which is 2 * R + 1 for no size R >= 0" in r.stderr


def test_a_size_nothing_gives_is_named(tmp_path):
    path = tmp_path / "spmv.py"
    path.write_text(PROGRAM)
    r = subprocess.run([TEML, "run", str(path), "--random", "1", "--cache-dir", str(tmp_path / "cache")],
                       capture_output=True, text=True)
    assert r.returncode == 1
    assert (f"{path}:7:25: error: size 'R' of 'ptr' is not bound: give --set R=N or an --input for a tensor whose "
            "shape uses it") in r.stderr


def test_python_binds_the_same_sizes(tmp_path, monkeypatch):
    path = tmp_path / "spmv_module.py"
    path.write_text(PROGRAM)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.syspath_prepend(str(pathlib.Path(TEML).parent / "python"))  # the build's teml
    import spmv_module
    ptr, idx, val, x = csr.random_csr(rows=37, cols=23, seed=3)
    np.testing.assert_allclose(spmv_module.spmv(ptr, idx, val, x), csr.spmv(ptr, idx, val, x), rtol=1e-12)
