"""distribute from the command line: with one rank (no mpirun) the program
runs as without it (several ranks: tests/distributed)."""
import os
import subprocess

from conftest import TEML

PROGRAM = '''import teml
@teml.transform
def f(x: teml.Var[(8,), "int64"], y: teml.Var[(8,), "int64", "output"]):
    #! label: Li
    for i in range(8):
        y[i] = x[i] * 2
@teml.schedule(f)
def g(s):
    s.distribute("Li")
'''


def run(tmp_path, ranks):
    path = tmp_path / "p.py"
    path.write_text(PROGRAM)
    env = dict(os.environ, OMPI_COMM_WORLD_SIZE=str(ranks))
    return subprocess.run([TEML, "run", str(path), "--random", "1", "--verify", "--cache-dir", str(tmp_path / "c")],
                          capture_output=True, text=True, env=env)


def test_one_rank_runs_the_distributed_loop_whole(tmp_path):
    result = run(tmp_path, 1)
    assert result.returncode == 0, result.stderr
    assert "(ok)" in result.stdout
