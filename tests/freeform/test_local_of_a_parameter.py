"""`local` of an entry's parameter is refused at its line: the caller's
values (an output's, an inout's) would live inside the loop only, and the
caller would get back what it passed in (found by the fuzz oracle, seed
2103 on `sched`: z kept its input values instead of 0)."""
import subprocess

from conftest import TEML

PROGRAM = """import teml
N = 4

@teml.transform
def f(x: teml.Var[(N,), 'float32'], z: teml.Var[(N,), 'float32', 'inout']):
    #! label: L
    for i in range(N):
        z[i] = x[i] - x[i]

@teml.schedule(f)
def schedule(s):
    s.local("L", "z")
"""


def test_local_of_an_inout_parameter_is_refused_at_its_line(tmp_path):
    program = tmp_path / "p.py"
    program.write_text(PROGRAM)
    run = subprocess.run([TEML, "run", str(program), "--cache-dir", str(tmp_path / "cache")], capture_output=True, text=True)
    assert run.returncode == 1, run.stderr
    assert f"{program}:12:5: error: local: 'z' is a parameter (inout)" in run.stderr, run.stderr
