"""A small statement outside the distributed loops (a boundary, a scalar set
before a sum) runs in the one rank whose part already holds what it writes
and reads, not in every rank (docs/distributed.md, "What moves, and
why"): the other ranks keep only their blocks, and results
equal one process at 1-4 ranks."""
import re

import numpy as np
import pytest

import test_mpi_runs as mpi_runs

BOUNDARIES = '''import teml


@teml.transform
def f(u: teml.Var[(N,), "int64"], v: teml.Var[(N,), "int64", "output"]):
    #! label: Li
    for i in range(1, N - 1):
        v[i] = u[i - 1] + u[i + 1]
    v[0] = u[0]
    v[N - 1] = u[N - 1]


@teml.schedule(f)
def schedule(s):
    s.distribute("Li")
'''

SCALARS_AROUND_A_SUM = '''import teml


@teml.transform
def f(x: teml.Var[(N,), "int64"], y: teml.Var[(N,), "int64", "output"], total: teml.Var[(), "int64", "output"]):
    top = teml.empty((), "int64")
    top[()] = x[N - 1] * 2
    total[()] = 7
    #! label: Lsum
    for i in range(N):
        total[()] += x[i] % 5
    #! label: Lscale
    for i in range(N):
        y[i] = x[i] * total[()] - top[()]
    y[0] = total[()] + top[()]


@teml.schedule(f)
def schedule(s):
    s.distribute("Lsum")
    s.distribute("Lscale")
'''


@pytest.mark.parametrize("ranks", [2, 3, 4])
def test_boundaries_run_in_the_rank_that_holds_them(tmp_path, ranks):
    path = tmp_path / "boundaries.py"
    path.write_text(BOUNDARIES)
    u = np.random.default_rng(5).integers(-100, 100, 4000)
    alone, _ = mpi_runs.run(tmp_path, path, {"N": 4000}, {"u": u}, ["v"], tag="alone")
    together, result = mpi_runs.run(tmp_path, path, {"N": 4000}, {"u": u}, ["v"], ranks, extra=["-v"])
    np.testing.assert_array_equal(together["v"], alone["v"])
    kept = re.findall(r"rank \d+: keeps (\d+) B of the program's tensors \((\d+) B whole\)", result.stderr)
    assert len(kept) == ranks
    for part, whole in kept:  # a block of u and v and a line's worth of padding, not the whole of either
        assert int(part) < int(whole) / ranks + 256, result.stderr


@pytest.mark.parametrize("ranks", [2, 3, 4])
def test_scalars_set_before_and_read_after_a_sum_across_ranks(tmp_path, ranks):
    path = tmp_path / "scalars.py"
    path.write_text(SCALARS_AROUND_A_SUM)
    x = np.random.default_rng(6).integers(-50, 50, 101)
    alone, _ = mpi_runs.run(tmp_path, path, {"N": 101}, {"x": x}, ["y", "total"], tag="alone")
    together, _ = mpi_runs.run(tmp_path, path, {"N": 101}, {"x": x}, ["y", "total"], ranks, tag=str(ranks))
    np.testing.assert_array_equal(together["y"], alone["y"])
    np.testing.assert_array_equal(together["total"], alone["total"])
