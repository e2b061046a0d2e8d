"""`teml run file.py` reads what the transform uses and leaves the rest of
the file to Python: imports of other modules, NumPy code, functions outside
teml's subset and `if __name__ == "__main__":` blocks. A transform that uses
such a name is an error at that use, the same as from Python."""
import pathlib
import subprocess

import numpy as np

from conftest import TEML

SCRIPT = '''"""A script around a transform."""
import sys, time
import numpy as np
import teml

a = np.arange(3.0)
b = a + 1
eps = 1e-6; fd = np.zeros_like(a)
scale = 2.0
label = f"{len(sys.argv)} arguments"


@teml.transform
def scaled(x: teml.Var[(n,), "float64"], y: teml.Var[(n,), "float64", "output"]):
    for i in range(n):
        y[i] = x[i] * scale + eps


def report(x):
    with np.errstate(all="ignore"):
        return [v for v in scaled.python(x, np.zeros_like(x))]


class Timer:
    pass


if __name__ == "__main__":
    print(report(np.arange(4.0)), file=sys.stderr)
'''

PYTHON_TESTS = pathlib.Path(__file__).resolve().parents[1] / "python" / "test_module_level_code.py"


def run(tmp_path, *args):
    return subprocess.run([TEML, *map(str, args), "--cache-dir", str(tmp_path / "cache")], capture_output=True, text=True)


def test_a_script_around_a_transform_runs_as_the_transform(tmp_path):
    program = tmp_path / "script.py"
    program.write_text(SCRIPT)
    x = np.arange(4.0)
    np.save(tmp_path / "x.npy", x)
    r = run(tmp_path, "run", program, "--input", f"x={tmp_path / 'x.npy'}", "--output", f"y={tmp_path / 'y.npy'}",
            "--verify")
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    np.testing.assert_allclose(np.load(tmp_path / "y.npy"), x * 2.0 + 1e-6)


def test_a_transform_using_numpy_is_an_error_at_that_use(tmp_path):
    program = tmp_path / "script.py"
    program.write_text(SCRIPT.replace("x[i] * scale + eps", "np.exp(x[i])"))
    r = run(tmp_path, "check", program, "--set", "n=4")
    assert r.returncode == 1
    assert r.stderr.startswith(f"{program}:16:16: error: 'np' is the Python module 'numpy' (imported at line 3): "
                               "a transform can use module-level numbers, functions and teml's modules"), r.stderr


def test_a_value_only_python_computes_is_an_error_at_its_use(tmp_path):
    program = tmp_path / "script.py"
    program.write_text(SCRIPT.replace("x[i] * scale + eps", "x[i] + fd"))
    r = run(tmp_path, "check", program, "--set", "n=4")
    assert r.returncode == 1
    assert r.stderr.startswith(f"{program}:16:23: error: 'fd' is set at line 8 from 'np', the Python module 'numpy'"), \
        r.stderr


def test_the_same_refusal_as_from_python(tmp_path):
    # tests/python/test_module_level_code.py, whose uses_numpy Python refuses at the same line
    lines = PYTHON_TESTS.read_text().splitlines()
    line = next(k for k, text in enumerate(lines, 1) if "y[i] = np.exp(x[i])" in text)
    r = run(tmp_path, "check", PYTHON_TESTS, "--entry", "uses_numpy", "--set", "n=3")
    assert r.returncode == 1
    assert r.stderr.startswith(f"{PYTHON_TESTS}:{line}:16: error: 'np' is the Python module 'numpy' (imported at line 8)"), \
        r.stderr
    r = run(tmp_path, "run", PYTHON_TESTS, "--entry", "scaled", "--set", "n=3", "--random", "1", "--verify")
    assert r.returncode == 0, r.stderr


PLOTTING_SCRIPT = '''from __future__ import annotations
import sys
import numpy as np
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import teml

rng = np.random.default_rng(7)
x = rng.standard_normal(1000)


@teml.transform
def smooth(x: teml.Var[(n,), "float64"]):
    y = teml.zeros((n,), "float64")
    for i in range(1, n - 1):
        y[i] = (x[i - 1] + 2.0 * x[i] + x[i + 1]) / 4.0
    return y


if __name__ == "__main__":
    y = smooth(x)
    np.save(sys.argv[1] + "/x.npy", x)
    np.save(sys.argv[1] + "/y_python.npy", y)
    plt.plot(x)
    plt.plot(y)
    plt.savefig(sys.argv[1] + "/plot.png")
'''


def test_a_script_with_data_and_plots_gives_the_same_result_under_python_and_teml_run(tmp_path):
    program = tmp_path / "plotting.py"
    program.write_text(PLOTTING_SCRIPT)
    env = dict(__import__("os").environ, PYTHONPATH=str(pathlib.Path(TEML).parent / "python"))
    r = subprocess.run(["/usr/bin/python3", str(program), str(tmp_path)], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "plot.png").exists()
    r = run(tmp_path, "run", program, "--input", f"x={tmp_path / 'x.npy'}", "--output", f"y={tmp_path / 'y_cli.npy'}")
    assert r.returncode == 0, r.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "y_cli.npy"), np.load(tmp_path / "y_python.npy"))
