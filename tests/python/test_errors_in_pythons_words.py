"""Errors reach a Python caller as Python exceptions in Python's words:
nothing names a command-line option the caller never saw."""
import sys

import numpy as np
import pytest

import teml

SOURCE = '''from __future__ import annotations
import teml


@teml.transform
def widen(x: teml.Var[(n,), "float32"], y: teml.Var[(m,), "float32", "output"]):
    for i in range(n):
        y[i] = x[i]


@teml.transform
def double(x: teml.Var[(n,), "float32"]):
    y = teml.empty((n,), "float32")
    for i in range(n):
        y[i] = x[i] * 2.0
    return y
'''


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    path = tmp_path_factory.mktemp("words") / "words_programs.py"
    path.write_text(SOURCE)
    sys.path.insert(0, str(path.parent))
    import words_programs
    yield words_programs
    sys.path.remove(str(path.parent))


def test_a_size_no_argument_gives_is_named_without_options(programs):
    with pytest.raises(teml.ProgramError) as e:
        programs.widen(np.zeros(4, np.float32))
    assert "size 'm' of 'y' is not bound: no argument's shape gives it" in str(e.value)
    assert "--" not in str(e.value)


def test_a_wrongly_shaped_argument_is_a_value_error_naming_both_shapes(programs):
    programs.double(np.zeros(4, np.float32))
    with pytest.raises(ValueError, match=r"parameter 'x' of double has shape \(n,\), 1 dimension\(s\); "
                                         r"the argument has shape \(2, 2\)"):
        programs.double(np.zeros((2, 2), np.float32))


def test_gradients_name_unknown_tensors_by_their_keyword(programs):
    with pytest.raises(ValueError, match=r"wrt: double has no input parameter 'q' \(inputs: x\)"):
        teml.grad(programs.double, wrt=["q"])
    with pytest.raises(ValueError, match=r"of: double has no result 'z' \(results: y\)"):
        teml.grad(programs.double, of=["z"])


def test_an_error_in_a_differentiated_program_names_its_file(tmp_path):
    path = tmp_path / "unknown_name.py"
    path.write_text("from __future__ import annotations\nimport teml\n\n\n@teml.transform\n"
                    "def f(x: teml.Var[(n,), 'float64']):\n    y = teml.zeros((n,), 'float64')\n"
                    "    for i in range(n):\n        y[i] = x[i] * b_unknown\n    return y\n")
    sys.path.insert(0, str(tmp_path))
    try:
        import unknown_name
        for call in (lambda: unknown_name.f(np.ones(3)), lambda: teml.grad(unknown_name.f)[0](np.ones(3)),
                     lambda: teml.torch_function(unknown_name.f)(__import__("torch").ones(3, dtype=__import__("torch").float64))):
            with pytest.raises(teml.ProgramError) as e:
                call()
            assert str(e.value).startswith(f"{path}:9:"), str(e.value)
    finally:
        sys.path.remove(str(tmp_path))
