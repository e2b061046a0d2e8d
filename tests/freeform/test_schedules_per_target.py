"""A schedule applies to the target it is written for. A schedule for every
target whose steps are one target's (a CPU `parallelize` with no GPU scope,
a loop bound to `threadIdx.x`) is that target's: under the other target the
program takes the automatic schedule, and `-v` says why."""
import subprocess

import numpy as np

from conftest import TEML, Teml

PROGRAM = '''import teml


@teml.transform
def double(x: teml.Var[(n, m), "float32"], y: teml.Var[(n, m), "float32", "output"]):
    #! label: Li
    for i in range(n):
        #! label: Lj
        for j in range(m):
            y[i, j] = x[i, j] * 2.0


@teml.schedule(double{target})
def chosen(s):
{steps}
'''

CPU = '    s.parallelize("Li")\n    s.vectorize("Lj")\n'
GPU = '    s.parallelize("Li", "blockIdx.x")\n    s.parallelize("Lj", "threadIdx.x")\n'
X = np.arange(64 * 33, dtype=np.float32).reshape(64, 33)


def test_a_cpu_schedule_does_not_break_the_gpu_target(tmp_path):
    program = PROGRAM.format(target="", steps=CPU)
    r = Teml(tmp_path).attempt(program, {"x": X}, ["y"], extra=("--target", "cuda", "--emulate", "-v"))
    assert r.returncode == 0, r.stderr
    assert ("the file's schedule is for the CPU (line 15 parallelizes with no GPU scope); the cuda target has none "
            "of its own, so it takes the automatic schedule") in r.stderr
    assert '@teml.schedule(double, target="cuda")' in r.stderr  # the automatic one, ready to paste
    np.testing.assert_array_equal(np.load(tmp_path / "out_y.npy"), 2 * X)


def test_a_gpu_schedule_does_not_break_the_cpu(tmp_path):
    out = Teml(tmp_path).run(PROGRAM.format(target="", steps=GPU), {"x": X}, ["y"], extra=("-v",))
    np.testing.assert_array_equal(out["y"], 2 * X)


def test_the_schedule_of_the_target_is_applied(tmp_path):
    path = tmp_path / "double.py"
    path.write_text(PROGRAM.format(target="", steps=CPU))
    r = subprocess.run([TEML, "emit", str(path), "--set", "n=64", "--set", "m=33", "--emit", "loops"],
                       capture_output=True, text=True)
    assert "for i in [0, 64) parallel\n  for j in [0, 33) vector" in r.stdout, r.stdout + r.stderr


def test_a_schedule_mixing_both_targets_is_refused_at_the_step(tmp_path):
    steps = '    s.parallelize("Li", "blockIdx.x")\n    s.vectorize("Lj")\n    s.parallelize("Lj")\n'
    r = Teml(tmp_path).attempt(PROGRAM.format(target="", steps=steps), {"x": X}, ["y"])
    assert r.returncode == 1
    assert "program.py:15:25: error: parallelize: \"blockIdx.x\" binds the loop to a GPU" in r.stderr, r.stderr
