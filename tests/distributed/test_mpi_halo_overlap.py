"""A halo overlapped with the step's interior (docs/distributed.md, "Time
loops"): where a distributed step reads a few points past its block
(`u[i - 1]`, `u[i + 1]`), its halo's sends and receives start before the
interior runs and complete before the block's two edges do. isl checks
that the interior reads only what the rank held before the halo."""
import re
import subprocess

import numpy as np
import pytest

import test_mpi_runs as mpi_runs
from test_mpi_runs import ENV, EXAMPLES, TEML

HEAT = EXAMPLES / "heat1d.py"


def lowered(tmp_path, program, sizes, ranks):
    args = [TEML, "emit", str(program), "--emit", "lowered", "--ranks", str(ranks), "--cache-dir", str(tmp_path / "c")]
    for k, v in sizes.items():
        args += ["--set", f"{k}={v}"]
    r = subprocess.run(args, capture_output=True, text=True, env=ENV, timeout=300)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_the_heat_steps_halo_starts_before_the_interior_and_completes_before_the_edges(tmp_path):
    text = lowered(tmp_path, HEAT, {"N": 1000, "T": 10}, 2)
    lines = [l.strip() for l in text.splitlines()]
    start = next(k for k, l in enumerate(lines) if l.startswith("exchange halo u"))
    wait = next(k for k, l in enumerate(lines) if l.startswith("exchange halo wait u"))
    # Between them the interior: one point in from each edge of the block.
    interior = [l for l in lines[start:wait] if re.match(r"for \w+ in", l)]
    assert len(interior) == 1 and "min(" in interior[0] and "+ 1" in interior[0], interior
    edges = [l for l in lines[wait:] if re.match(r"for \w+ in", l)]
    assert len(edges) >= 2, lines[wait:]


@pytest.mark.parametrize("ranks", [2, 3, 4])
def test_overlapped_heat_equals_one_process_bit_for_bit_with_blocks_of_one_point(tmp_path, ranks):
    # N - 2 = 5 points over up to 4 ranks: blocks of one or two points, whose
    # interior is empty and whose edges meet.
    n, t = 7, 20
    u0 = np.random.default_rng(3).random(n)
    alone, _ = mpi_runs.run(tmp_path, HEAT, {"N": n, "T": t}, {"u0": u0}, ["u"], tag="alone")
    together, _ = mpi_runs.run(tmp_path, HEAT, {"N": n, "T": t}, {"u0": u0}, ["u"], ranks, str(ranks),
                               extra=["--threads", "1"])
    np.testing.assert_array_equal(together["u"], alone["u"])


def test_a_read_that_is_not_an_offset_of_the_iterator_keeps_the_halo_whole(tmp_path):
    program = tmp_path / "mirror.py"
    program.write_text('''import teml


@teml.transform
def f(u0: teml.Var[(N,), "int64"], u: teml.Var[(N,), "int64", "output"]):
    v = teml.zeros((N,), "int64")
    #! label: Lstart
    for i in range(N):
        u[i] = u0[i]
    for t in range(T):
        #! label: Lstep
        for i in range(1, N - 1):
            v[i] = u[i - 1] + u[N - 1 - i]
        #! label: Lcopy
        for i in range(1, N - 1):
            u[i] = v[i] % 1000


@teml.schedule(f)
def schedule(s):
    s.distribute("Lstart")
    s.distribute("Lstep")
    s.distribute("Lcopy")
''')
    text = lowered(tmp_path, program, {"N": 40, "T": 3}, 2)
    assert "halo wait" not in text, text
    u0 = np.arange(40, dtype=np.int64) * 7
    alone, _ = mpi_runs.run(tmp_path, program, {"N": 40, "T": 3}, {"u0": u0}, ["u"], tag="alone")
    together, _ = mpi_runs.run(tmp_path, program, {"N": 40, "T": 3}, {"u0": u0}, ["u"], 2, "2")
    np.testing.assert_array_equal(together["u"], alone["u"])
