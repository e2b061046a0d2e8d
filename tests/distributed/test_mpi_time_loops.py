"""Time loops around distributed steps (docs/distributed.md, "Time loops"):
the heat equation in 1-D and 2-D, 100 time steps, under mpirun with 1-4
ranks writes what one process writes, bit for bit; before each step every
rank receives exactly its halo (closed form: one point, or one row of the
interior, per neighbour and step), as predicted; boundaries and a sum inside
the time loop stay right; `teml check --ranks N` accepts and refuses what
mpirun does."""
import re
import subprocess

import numpy as np
import pytest

import test_mpi_runs as mpi_runs  # its launcher, environment and paths
from test_mpi_runs import ENV, EXAMPLES, TEML
HALO = re.compile(r"rank (\d+): halo of '(\w+)': predicted (\d+) B sent, (\d+) B received(?: \((\d+) times\))?; "
                  r"moved (\d+) B sent, (\d+) B received")

BOUNDARIES_AND_A_SUM = '''import teml


@teml.transform
def heat(u0: teml.Var[(N,), "int64"], u: teml.Var[(N,), "int64", "output"], err: teml.Var[(), "int64", "output"]):
    v = teml.zeros((N,), "int64")
    #! label: Lstart
    for i in range(N):
        u[i] = u0[i]
    for t in range(T):
        u[0] = u[1] + t
        u[N - 1] = u[N - 2] - 1
        #! label: Lstep
        for i in range(1, N - 1):
            v[i] = (u[i - 1] + 2 * u[i] + u[i + 1]) % 997
        #! label: Lerr
        for i in range(1, N - 1):
            err[()] += (v[i] - u[i]) * (v[i] - u[i]) % 13
            u[i] = v[i]


@teml.schedule(heat)
def schedule(s):
    s.distribute("Lstart")
    s.distribute("Lstep")
    s.distribute("Lerr")
'''

BUFFER_CHOSEN_BY_THE_STEP = '''import teml


@teml.transform
def heat(w: teml.Var[(3, N), "int64", "inout"]):
    for t in range(T):
        #! label: Lstep
        for i in range(1, N - 1):
            w[(t + 1) % 3, i] = w[t % 3, i - 1] + w[t % 3, i + 1]


@teml.schedule(heat)
def schedule(s):
    s.distribute("Lstep")
'''


def run(tmp_path, program, sizes, inputs, outputs, ranks=None, tag=""):
    return mpi_runs.run(tmp_path, program, sizes, inputs, outputs, ranks, tag, extra=["--threads", "1", "-v"])


def halos(result):
    """(rank, tensor) -> (predicted sent, received, moved sent, received), summed over the exchanges."""
    out = {}
    for rank, tensor, sent, received, _, moved_sent, moved_received in HALO.findall(result.stderr):
        key = (int(rank), tensor)
        old = out.get(key, (0, 0, 0, 0))
        out[key] = tuple(a + int(b) for a, b in zip(old, (sent, received, moved_sent, moved_received)))
    return out


def neighbours(rank, ranks):
    return (rank > 0) + (rank < ranks - 1)


@pytest.mark.parametrize("ranks", [1, 2, 3, 4])
def test_heat_1d_moves_one_point_per_neighbour_and_step(tmp_path, ranks):
    n, steps = 37, 100
    u0 = np.random.default_rng(1).random(n)
    alone, _ = run(tmp_path, EXAMPLES / "heat1d.py", {"N": n, "T": steps}, {"u0": u0}, ["u"], tag="alone")
    together, result = run(tmp_path, EXAMPLES / "heat1d.py", {"N": n, "T": steps}, {"u0": u0}, ["u"], ranks)
    np.testing.assert_array_equal(together["u"], alone["u"])  # each point computed as one process does
    moved = halos(result)
    for r in range(ranks):
        want = 8 * steps * neighbours(r, ranks)
        assert moved.get((r, "u"), (0, 0, 0, 0)) == (want, want, want, want), result.stderr
        assert (r, "v") not in moved  # v is read only where it is written


@pytest.mark.parametrize("ranks", [1, 2, 3, 4])
def test_heat_2d_moves_the_rows_next_to_each_block(tmp_path, ranks):
    n, m, steps = 23, 17, 100
    u0 = np.random.default_rng(2).random((n, m))
    alone, _ = run(tmp_path, EXAMPLES / "heat2d.py", {"N": n, "M": m, "T": steps}, {"u0": u0}, ["u"], tag="alone")
    together, result = run(tmp_path, EXAMPLES / "heat2d.py", {"N": n, "M": m, "T": steps}, {"u0": u0}, ["u"], ranks)
    np.testing.assert_array_equal(together["u"], alone["u"])
    moved = halos(result)
    for (r, tensor), (sent, received, moved_sent, moved_received) in moved.items():
        assert (sent, received) == (moved_sent, moved_received), result.stderr
    if ranks == 2:
        # Both loops over rows split alike: every half step, a row of the interior each way.
        for r in range(2):
            for tensor in ("u", "v"):
                row = 8 * (m - 2) * steps
                assert moved[(r, tensor)] == (row, row, row, row), result.stderr


def test_the_first_step_is_planned_apart_where_the_blocks_change_hands(tmp_path):
    # With 3 ranks the loop that copies u0 splits rows [0, 23) and the half
    # steps split [1, 22): row 7 is rank 1's before the loop and rank 0's
    # after its first step. The first step gets its own exchanges; the
    # other 99 move one interior row per neighbour and half step.
    n, m, steps = 23, 17, 100
    u0 = np.random.default_rng(3).random((n, m))
    _, result = run(tmp_path, EXAMPLES / "heat2d.py", {"N": n, "M": m, "T": steps}, {"u0": u0}, ["u"], 3)
    steady = [(int(r), t, int(s)) for r, t, s, _, times, _, _ in HALO.findall(result.stderr) if times == str(steps - 1)]
    assert len(steady) == 6, result.stderr
    for r, tensor, sent in steady:
        assert sent == 8 * (m - 2) * (steps - 1) * neighbours(r, 3)


def test_boundaries_and_a_sum_inside_the_time_loop(tmp_path):
    path = tmp_path / "boundaries.py"
    path.write_text(BOUNDARIES_AND_A_SUM)
    u0 = np.random.default_rng(4).integers(0, 100, 37)
    sizes = {"N": 37, "T": 20}
    alone, _ = run(tmp_path, path, sizes, {"u0": u0}, ["u", "err"], tag="alone")
    for ranks in (2, 3, 4):
        together, _ = run(tmp_path, path, sizes, {"u0": u0}, ["u", "err"], ranks, tag=str(ranks))
        np.testing.assert_array_equal(together["u"], alone["u"])
        np.testing.assert_array_equal(together["err"], alone["err"])


def test_a_step_whose_elements_change_with_the_time_step_is_refused_at_its_distribute_call(tmp_path):
    # Three buffers in turn: pairs of iterations (two buffers, `t % 2`) are planned, thirds are not.
    path = tmp_path / "buffers.py"
    path.write_text(BUFFER_CHOSEN_BY_THE_STEP)
    message = "buffers.py:14:5: error: distribute: the elements of 'w' a rank touches depend on the iterator 't'"
    check = subprocess.run([TEML, "check", str(path), "--set", "N=37", "--set", "T=4", "--ranks", "2"],
                           capture_output=True, text=True, env=ENV, timeout=120)
    assert check.returncode == 1 and message in check.stderr, check.stderr
    np.save(tmp_path / "w.npy", np.zeros((3, 37), np.int64))
    under_mpirun = subprocess.run(["mpirun", "-np", "2", TEML, "run", str(path), "--set", "N=37", "--set", "T=4",
                                   "--input", f"w={tmp_path / 'w.npy'}", "--cache-dir", str(tmp_path / "cache")],
                                  capture_output=True, text=True, env=ENV, timeout=120)
    assert under_mpirun.returncode == 1 and message in under_mpirun.stderr, under_mpirun.stderr
    for ranks in (2, 3):
        accepted = subprocess.run([TEML, "check", str(EXAMPLES / "heat2d.py"), "--set", "N=23", "--set", "M=17",
                                   "--set", "T=5", "--ranks", str(ranks)], capture_output=True, text=True, env=ENV,
                                  timeout=120)
        assert accepted.returncode == 0, accepted.stderr


@pytest.mark.parametrize("ranks", [2, 3])
def test_the_automatic_distribution_splits_the_steps_inside_a_time_loop(tmp_path, ranks):
    # heat2d as written (its schedule left out): `--auto` under mpirun finds
    # the time loop serial and distributes the loops of its steps instead
    # (at a size where the model finds the halos cheap against the work).
    sizes = {"N": 1024, "M": 513, "T": 10}
    u0 = np.random.default_rng(7).random((1024, 513))
    alone, _ = mpi_runs.run(tmp_path, EXAMPLES / "heat2d.py", sizes, {"u0": u0}, ["u"], tag="alone",
                            extra=["--no-schedule"])
    together, result = mpi_runs.run(tmp_path, EXAMPLES / "heat2d.py", sizes, {"u0": u0}, ["u"], ranks,
                                    extra=["--no-schedule", "--auto", "--threads", "1", "-v"])
    np.testing.assert_array_equal(together["u"], alone["u"])
    assert "predicted exchanges" in result.stderr and "messages" in result.stderr, result.stderr
    assert len(re.findall(r"rank 0: distributed loop \d+", result.stderr)) == 3, result.stderr
    assert re.search(r"halo of 'u': .*\((9|10) times\)", result.stderr), result.stderr
