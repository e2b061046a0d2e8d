"""A distributed loop whose inner part runs on threads, with a body that
reduces into a scalar and into a row (issue 43, item 5; docs/distributed.md,
"What moves, and why"): the threads of a rank sum each block into a private
accumulator that starts at the operator's identity and is added into the
tensor after the block, so the ranks' sums are a reduction combined across
the ranks. Integers: a lost or doubled update changes the results."""
import os
import pathlib
import subprocess

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
TEML = os.environ.get("TEML_BINARY", str(ROOT / "build" / "teml"))
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1", OMPI_MCA_hwloc_base_binding_policy="none",
           OMP_NUM_THREADS="1")

PROGRAM = '''import teml


@teml.transform
def f(x: teml.Var[(N,), "int64"], rsq: teml.Var[(N,), "int64", "output"],
      total: teml.Var[(), "int64", "inout"], top: teml.Var[(), "int64", "inout"],
      row: teml.Var[(3,), "int64", "inout"]):
    #! label: L
    for i in range(N):
        rsq[i] = x[i] * x[i] - 3 * i
        total[()] += rsq[i]
        top[()] = max(top[()], rsq[i] - 2 * i)
        for c in range(3):
            row[c] += rsq[i] * (c + 1)


@teml.schedule(f)
def schedule(s):
SCHEDULE
'''

# The schedule (two block sizes), threads on the outer loop too, and
# threads on the distributed loop itself.
SCHEDULES = {
    "inner4": ['outer, inner = s.split("L", 4)', "s.distribute(outer)", "s.parallelize(inner)"],
    "inner64": ['outer, inner = s.split("L", 64)', "s.distribute(outer)", "s.parallelize(inner)"],
    "both": ['outer, inner = s.split("L", 8)', "s.distribute(outer)", "s.parallelize(outer)", "s.parallelize(inner)"],
    "same": ['s.distribute("L")', 's.parallelize("L")'],
}

N = 1003


def expected(x):
    i = np.arange(N, dtype=np.int64)
    rsq = x * x - 3 * i
    return {"rsq": rsq, "total": np.int64(5) + rsq.sum(), "top": max(np.int64(-7), (rsq - 2 * i).max()),
            "row": np.array([10, 20, 30], dtype=np.int64) + rsq.sum() * np.array([1, 2, 3], dtype=np.int64)}


def run(tmp_path, schedule, ranks, threads, tag):
    path = tmp_path / "reduce.py"
    path.write_text(PROGRAM.replace("SCHEDULE", "\n".join("    " + line for line in SCHEDULES[schedule])))
    x = (np.arange(N, dtype=np.int64) * 7919) % 2003 - 1000
    inputs = {"x": x, "total": np.array(5, dtype=np.int64), "top": np.array(-7, dtype=np.int64),
              "row": np.array([10, 20, 30], dtype=np.int64)}
    args = [TEML, "run", str(path), "--set", f"N={N}", "--threads", str(threads),
            "--cache-dir", str(tmp_path / "cache")]
    for name, value in inputs.items():
        np.save(tmp_path / f"in_{name}.npy", value)
        args += ["--input", f"{name}={tmp_path / f'in_{name}.npy'}"]
    names = ["rsq", "total", "top", "row"]
    for name in names:
        args += ["--output", f"{name}={tmp_path / f'out{tag}_{name}.npy'}"]
    if ranks:
        args = ["mpirun", "-np", str(ranks)] + args
    result = subprocess.run(args, capture_output=True, text=True, env=ENV, timeout=300)
    assert result.returncode == 0, result.stderr
    return x, {name: np.load(tmp_path / f"out{tag}_{name}.npy") for name in names}


@pytest.mark.parametrize("schedule", sorted(SCHEDULES))
def test_threads_inside_a_distributed_loop_reduce_into_a_scalar_and_a_row(tmp_path, schedule):
    for ranks, threads in [(None, 2), (1, 2), (2, 2), (3, 2), (4, 1), (2, 1)]:
        x, got = run(tmp_path, schedule, ranks, threads, f"{ranks}x{threads}")
        want = expected(x)
        for name, value in want.items():
            np.testing.assert_array_equal(got[name], value, err_msg=f"{name}: {ranks} ranks x {threads} threads")
