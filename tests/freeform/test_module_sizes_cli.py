"""A module-level integer (`n = 3`) is a size fixed when the program
compiles, as in FreeTensor: an input of another size is an error at that
line, not at an option the user did not give."""
import subprocess

import numpy as np

from conftest import TEML

PROGRAM = '''import teml

n = 3


@teml.transform
def add_one(x: teml.Var[(n,), "float32"], y: teml.Var[(n,), "float32", "output"]):
    for i in range(n):
        y[i] = x[i] + 1.0
'''


def test_an_input_of_another_size_is_an_error_at_the_line_that_fixes_it(tmp_path):
    program = tmp_path / "sizes.py"
    program.write_text(PROGRAM)
    np.save(tmp_path / "x.npy", np.zeros(4, np.float32))
    r = subprocess.run([TEML, "run", str(program), "--input", f"x={tmp_path / 'x.npy'}", "--cache-dir",
                        str(tmp_path / "cache")], capture_output=True, text=True)
    assert r.returncode == 1
    assert r.stderr.strip() == (f"{program}:3:1: error: size 'n' is 3 here (a module-level integer is a size fixed "
                                "when the program compiles), but the input for 'x' has 4 in dimension 0")
    assert "--set" not in r.stderr


def test_an_explicit_set_is_still_named_as_such(tmp_path):
    program = tmp_path / "sizes.py"
    program.write_text(PROGRAM.replace("n = 3\n", ""))
    np.save(tmp_path / "x.npy", np.zeros(4, np.float32))
    r = subprocess.run([TEML, "run", str(program), "--set", "n=3", "--input", f"x={tmp_path / 'x.npy'}", "--cache-dir",
                        str(tmp_path / "cache")], capture_output=True, text=True)
    assert r.returncode == 2
    assert "size 'n' is 3 (from --set) but the input for 'x' has 4 in dimension 0" in r.stderr
