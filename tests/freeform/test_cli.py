"""The free-form contract at the command line: exit statuses, messages at
file:line:col, index checks against input files, emitted loop nests."""
import subprocess

import numpy as np

from conftest import TEML

GATHER = """import teml

@teml.transform
def gather(x: teml.Var[(n, 4), "float64"], idx: teml.Var[(m,), "int32"], y: teml.Var[(m, 4), "float64", "output"]):
    for i in range(m):
        y[i] = x[idx[i]]
"""


def run(tmp_path, *args):
    return subprocess.run([TEML, *map(str, args), "--cache-dir", str(tmp_path / "cache")], capture_output=True, text=True)


def test_an_out_of_range_index_in_an_input_file_stops_the_run(tmp_path):
    program = tmp_path / "gather.py"
    program.write_text(GATHER)
    np.save(tmp_path / "x.npy", np.arange(20.0).reshape(5, 4))
    np.save(tmp_path / "idx.npy", np.array([0, 4, 5], np.int32))
    out = tmp_path / "y.npy"
    r = run(tmp_path, "run", program, "--input", f"x={tmp_path / 'x.npy'}", "--input", f"idx={tmp_path / 'idx.npy'}",
            "--output", f"y={out}")
    assert r.returncode == 1
    assert r.stderr.strip() == f"{program}:6:18: error: index 5 out of range [0, 5) for dimension 0 of 'x'"
    assert not out.exists()
    # In range: NumPy's answer.
    np.save(tmp_path / "idx.npy", np.array([0, 4, 2], np.int32))
    r = run(tmp_path, "run", program, "--input", f"x={tmp_path / 'x.npy'}", "--input", f"idx={tmp_path / 'idx.npy'}",
            "--output", f"y={out}")
    assert r.returncode == 0, r.stderr
    np.testing.assert_array_equal(np.load(out), np.arange(20.0).reshape(5, 4)[[0, 4, 2]])


def test_inconsistent_sizes_from_two_inputs_are_a_file_error(tmp_path):
    program = tmp_path / "gather.py"
    program.write_text(GATHER.replace('y: teml.Var[(m, 4)', 'y: teml.Var[(n, 4)').replace("range(m)", "range(n)"))
    np.save(tmp_path / "x.npy", np.zeros((5, 4)))
    np.save(tmp_path / "idx.npy", np.zeros(3, np.int32))
    r = run(tmp_path, "check", program, "--input", f"x={tmp_path / 'x.npy'}", "--input", f"idx={tmp_path / 'idx.npy'}",
            "--set", "m=4")
    assert r.returncode == 2
    assert "size 'm' is 4 (from --set) but the input for 'idx' has 3 in dimension 0" in r.stderr


def test_a_wrong_program_exits_1_at_its_line(tmp_path):
    program = tmp_path / "bad.py"
    program.write_text(GATHER.replace("y[i] = x[idx[i]]", "y[i] = x[idx[i]] + z"))
    r = run(tmp_path, "check", program, "--set", "n=5", "--set", "m=3")
    assert r.returncode == 1
    assert r.stderr.startswith(f"{program}:6:28: error: unknown name 'z'")


def test_dimension_free_add_becomes_plain_loop_nests_for_every_rank(tmp_path):
    for rank in range(1, 5):
        shape = tuple(range(2, 2 + rank))
        program = tmp_path / f"add{rank}.py"
        program.write_text(f"""import teml

def add(a, b, c):
    if a.ndim == 0:
        c[()] = a + b
    else:
        for i in range(a.shape(0)):
            add(a[i], b[i], c[i])

@teml.transform
def f(a: teml.Var[{shape}, "float64"], b: teml.Var[{shape}, "float64"], c: teml.Var[{shape}, "float64", "output"]):
    add(a, b, c)
""")
        r = run(tmp_path, "emit", program, "--emit", "loops")
        assert r.returncode == 0, r.stderr
        assert r.stdout.count("for ") == rank and "if" not in r.stdout, r.stdout
