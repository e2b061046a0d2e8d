"""teml.load: TeML, TeIL and .til programs called from Python."""
import pathlib

import numpy as np
import pytest

import teml

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"
rng = np.random.default_rng(2)


def test_a_teml_program_with_its_schedule_multiplies_matrices():
    mm = teml.load(EXAMPLES / "mm" / "best.teml", N=48)
    assert mm.inputs == ["A", "B"] and mm.outputs == ["C"]
    a, b = rng.standard_normal((48, 48)), rng.standard_normal((48, 48))
    np.testing.assert_allclose(mm(a, b), a @ b, rtol=1e-12)
    np.testing.assert_allclose(mm(B=b, A=a), a @ b, rtol=1e-12)
    assert "parallel" in mm.ir() and "omp" in mm.c_source()


def test_a_teil_program():
    matmul = teml.load(EXAMPLES / "teil" / "matmul.teil", l=5, m=4, n=3)
    a, b = rng.standard_normal((5, 4)), rng.standard_normal((4, 3))
    np.testing.assert_allclose(matmul(a, b), a @ b, rtol=1e-12)


def test_wrong_programs_and_arguments():
    with pytest.raises(teml.ProgramError) as e:
        teml.load(EXAMPLES / "teil" / "matmul.teil")
    assert e.value.file.endswith("matmul.teil") and e.value.line == 4
    mm = teml.load(EXAMPLES / "mm" / "naive.teml", N=8)
    with pytest.raises(ValueError, match="tensor 'A' of .* has shape \\(8, 8\\), not \\(4, 4\\)"):
        mm(np.zeros((4, 4)), np.zeros((8, 8)))
    with pytest.raises(TypeError, match="missing input tensor 'B'"):
        mm(np.zeros((8, 8)))


def test_an_inout_tensor_is_passed_in_and_its_update_returned(tmp_path):
    program = tmp_path / "scale.py"
    program.write_text("import teml\n\n@teml.transform\n"
                       "def scale(x: teml.Var[(4,), 'float64'], y: teml.Var[(4,), 'float64', 'inout']):\n"
                       "    for i in range(4):\n        y[i] = y[i] * x[i]\n")
    scale = teml.load(program)
    assert scale.inputs == ["x", "y"] and scale.outputs == ["y"]
    y = np.arange(4.0)
    np.testing.assert_allclose(scale(np.full(4, 2.0), y), 2 * np.arange(4.0))
    np.testing.assert_allclose(y, np.arange(4.0))  # the caller's array is not changed
