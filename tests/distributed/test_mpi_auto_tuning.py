"""`--auto` under mpirun (issue 43, item 4; docs/distributed.md, "The automatic
schedule"): the measured search runs once, in rank 0, whose choice every rank
takes; the candidates run there as one process (they used to be lowered for
the ranks and call MPI before it started: every rank aborted). Then the
automatic distribution splits interp across the ranks, which write what one
process writes."""
import os
import pathlib
import re
import subprocess

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
TEML = os.environ.get("TEML_BINARY", str(ROOT / "build" / "teml"))
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1", OMPI_MCA_hwloc_base_binding_policy="none",
           OMP_NUM_THREADS="1")
NAIVE = ROOT / "examples" / "interp" / "naive.teml"
E, N = 12000, 7  # the tuner's buffers of u, t1, t2 and v: 4 x 31 MiB in the rank that measures


def teml(tmp_path, command, ranks, extra=()):
    args = [TEML, command, str(NAIVE), "--set", f"E={E}", "--set", f"N={N}", "--auto", "--tune-budget", "1",
            "--threads", "1", "--cache-dir", str(tmp_path / "cache"), *extra]
    if ranks:
        args = ["mpirun", "-np", str(ranks)] + args
    result = subprocess.run(args, capture_output=True, text=True, env=ENV, timeout=600)
    assert result.returncode == 0, result.stderr
    assert "MPI_INIT" not in result.stderr, result.stderr
    return result


def test_auto_under_mpirun_tunes_in_rank_0_and_distributes_interp(tmp_path):
    rng = np.random.default_rng(3)
    np.save(tmp_path / "A.npy", rng.random((N, N)))
    np.save(tmp_path / "u.npy", rng.random((E, N, N, N)))
    io = ["--input", f"A={tmp_path / 'A.npy'}", "--input", f"u={tmp_path / 'u.npy'}"]
    alone = teml(tmp_path / "alone", "run", None, io + ["--output", f"v={tmp_path / 'alone.npy'}"])
    # A cache of its own: the ranks measure (no stored choice).
    result = teml(tmp_path / "ranks", "run", 2, io + ["--output", f"v={tmp_path / 'ranks.npy'}", "-v"])
    np.testing.assert_allclose(np.load(tmp_path / "ranks.npy"), np.load(tmp_path / "alone.npy"), rtol=1e-12, atol=0)
    # The automatic schedule distributed interp's element loop, and each rank ran half of it.
    assert "teml: distribute      predicted exchanges 0 B per rank" in result.stderr, result.stderr
    assert re.search(r"\n(\w+)_d = distribute\(\1, \w+\)\ncodegen\(\1_d\)", result.stderr), result.stderr  # TeML to paste
    blocks = re.findall(r"rank (\d): distributed loop 1 '\S+' iterations \[(\d+), (\d+)\) of \[0, (\d+)\)",
                        result.stderr)
    assert [b[0] for b in blocks] == ["0", "1"] and blocks[0][2] == blocks[1][1] != "0", result.stderr
    # Only rank 0 measured: it alone held the tuner's buffers of the whole of u, t1, t2 and v; rank 1
    # holds only its half of u and v (the bytes of one whole u is a margin of about 32 MiB).
    peaks = {int(r): float(m) for r, m in re.findall(r"rank (\d): keeps \d+ B .* peak resident ([\d.]+) MiB",
                                                     result.stderr)}
    assert peaks[0] - peaks[1] > E * N ** 3 * 8 / 2 ** 20, result.stderr
    # The choice was stored once (by rank 0) in the kernel cache.
    stored = list((tmp_path / "ranks" / "cache" / "tuning").iterdir())
    assert stored and all(p.read_text().startswith("choice ") for p in stored), stored


def test_bench_with_auto_under_mpirun_takes_the_stored_choice(tmp_path):
    first = teml(tmp_path, "bench", 2, ["--runs", "2"])
    again = teml(tmp_path, "bench", 2, ["--runs", "2"])
    for result in (first, again):
        assert result.stdout.count("runs on 2 ranks of 1 thread") == 1, result.stdout + result.stderr
    assert "tuning:" not in again.stderr, again.stderr  # nothing measured the second time
