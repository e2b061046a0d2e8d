"""distribute from the command line: with one rank (no mpirun) the program
runs as without it; this teml has no MPI, so a launch with several ranks
stops with exit 4 instead of running the whole program once per rank."""
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


def test_several_ranks_without_mpi_stop_with_exit_4(tmp_path):
    result = run(tmp_path, 3)
    assert result.returncode == 4, result.stderr
    assert "built without MPI" in result.stderr and "3 ranks" in result.stderr
