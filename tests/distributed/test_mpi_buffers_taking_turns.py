"""Two buffers taking turns in a time loop (docs/distributed.md, "Time
loops"): a step that reads `w[t % 2]` and writes `w[(t + 1) % 2]` touches
other elements in odd and even steps, so the time loop runs in pairs of
iterations, each pair planned as two steps with a halo before each, and an
odd last iteration after the pairs. Under mpirun with 1-4 ranks it writes
what one process writes, bit for bit, for odd and even step counts; each
rank receives one point per neighbour and step, as predicted; `teml check`
and mpirun accept it alike."""
import subprocess

import numpy as np
import pytest

import test_mpi_runs as mpi_runs
from test_mpi_runs import ENV, EXAMPLES, TEML
from test_mpi_time_loops import HALO, halos, neighbours

PING_PONG = '''import teml


@teml.transform
def heat(u0: teml.Var[(N,), "int64"], u: teml.Var[(N,), "int64", "output"]):
    w = teml.zeros((2, N), "int64")
    #! label: Lstart
    for i in range(N):
        w[0, i] = u0[i]
        w[1, i] = u0[i]
    for t in range(T):
        #! label: Lstep
        for i in range(1, N - 1):
            w[(t + 1) % 2, i] = (w[t % 2, i - 1] + 2 * w[t % 2, i] + w[t % 2, i + 1] + t) % 1009
    #! label: Lend
    for i in range(N):
        u[i] = w[T % 2, i]


@teml.schedule(heat)
def schedule(s):
    s.distribute("Lstart")
    s.distribute("Lstep")
    s.parallelize("Lstep")
    s.distribute("Lend")
'''


def expected(u0, steps):
    w = u0.copy()
    for t in range(steps):
        v = w.copy()
        v[1:-1] = (w[:-2] + 2 * w[1:-1] + w[2:] + t) % 1009
        w = v
    return w


@pytest.mark.parametrize("steps", [20, 7])
def test_every_rank_count_writes_what_one_process_writes(tmp_path, steps):
    path = tmp_path / "ping_pong.py"
    path.write_text(PING_PONG)
    u0 = np.random.default_rng(steps).integers(0, 1000, 41)
    sizes = {"N": 41, "T": steps}
    alone, _ = mpi_runs.run(tmp_path, path, sizes, {"u0": u0}, ["u"], tag="alone")
    np.testing.assert_array_equal(alone["u"], expected(u0, steps))
    for ranks in (1, 2, 3, 4):
        threads = ["--threads", "2"] if ranks == 2 else ["--threads", "1"]
        together, result = mpi_runs.run(tmp_path, path, sizes, {"u0": u0}, ["u"], ranks, tag=str(ranks),
                                        extra=["-v", *threads])
        np.testing.assert_array_equal(together["u"], alone["u"], err_msg=f"{ranks} ranks")
        if ranks == 1:
            continue
        # Inside the loop over pairs, one point from each neighbour before each step, predicted
        # and moved. (The first pair, and the end, also move the row that the loops over [0, N)
        # and over [1, N - 1) give to different ranks.)
        inside = [h for h in HALO.findall(result.stderr) if h[4]]
        assert len(inside) == 2 * ranks, result.stderr
        for rank, tensor, sent, received, times, moved_sent, moved_received in inside:
            expected_bytes = 8 * neighbours(int(rank), ranks) * int(times)
            assert int(received) == int(moved_received) == int(sent) == int(moved_sent) == expected_bytes, result.stderr
        for rank in range(ranks):
            sent, received, moved_sent, moved_received = halos(result)[(rank, "w")]
            assert (sent, received) == (moved_sent, moved_received), result.stderr


def test_check_and_mpirun_accept_it_alike(tmp_path):
    path = tmp_path / "ping_pong.py"
    path.write_text(PING_PONG)
    check = subprocess.run([TEML, "check", str(path), "--set", "N=41", "--set", "T=5", "--ranks", "3", "-v"],
                           capture_output=True, text=True, env=ENV, timeout=120)
    assert check.returncode == 0, check.stderr
    lowered = subprocess.run([TEML, "emit", str(path), "--set", "N=41", "--set", "T=5", "--ranks", "3",
                              "--emit", "lowered"], capture_output=True, text=True, env=ENV, timeout=120).stdout
    # The pairs' parities are folded: no remainder is computed per access.
    assert "for t_pair in [1, 2)" in lowered and "mod(2 * t_pair" not in lowered, lowered  # the first pair peeled


def test_the_example_equals_heat1d_which_copies_back(tmp_path):
    # examples/distributed/heat1d_two_buffers.py computes heat1d.py's steps without the copy.
    u0 = np.random.default_rng(9).random(1001)
    sizes = {"N": 1001, "T": 15}
    copied, _ = mpi_runs.run(tmp_path, EXAMPLES / "heat1d.py", sizes, {"u0": u0}, ["u"], tag="copied")
    for ranks in (None, 2, 3):
        turns, _ = mpi_runs.run(tmp_path, EXAMPLES / "heat1d_two_buffers.py", sizes, {"u0": u0}, ["u"], ranks,
                                tag=f"turns{ranks}", extra=["--threads", "1"])
        np.testing.assert_array_equal(turns["u"], copied["u"], err_msg=f"{ranks} ranks")
