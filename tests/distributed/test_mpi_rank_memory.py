"""What a rank holds in memory (docs/distributed.md, "What each rank keeps"):
a tensor the program defines and stores whole before reading it (GAT's `h`)
is left unfilled, so each rank is resident only in the pages it touches
(its block of rows, the rows its edges name). With 4 ranks of the GAT-like
layer, a rank's resident memory beyond a tiny run's stays below the part of
the program's tensors it keeps plus three quarters of `h`; zeroed whole, as
before, `h` alone put it about 3 MB past that bound."""
import re
import subprocess

import numpy as np

import test_mpi_runs as mpi_runs
from test_mpi_indexed_gathers import power_law_graph
from test_mpi_runs import EXAMPLES

KEEPS = re.compile(r"rank (\d+): keeps (\d+) B of the program's tensors \(\d+ B whole\); peak resident ([\d.]+) MiB")


def csr_run(tmp_path, n, m, c, ranks, tag):
    ptr, col = power_law_graph(n, m, 11)
    x = np.random.default_rng(12).integers(-50, 50, (n, c)).astype(np.int64)
    inputs = {"ptr": ptr, "col": col, "x": x, "total": np.zeros(c, np.int64)}
    sizes = {"N": n, "M": m, "C": c}
    alone, _ = mpi_runs.run(tmp_path, EXAMPLES / "csr.py", sizes, inputs, ["y", "total"], tag=tag + "alone")
    together, result = mpi_runs.run(tmp_path, EXAMPLES / "csr.py", sizes, inputs, ["y", "total"], ranks, tag,
                                    extra=["-v", "--threads", "1"])
    for name in ("y", "total"):
        np.testing.assert_array_equal(together[name], alone[name])
    ranks_seen = {int(r): (int(kept), float(mib) * 2**20) for r, kept, mib in KEEPS.findall(result.stderr)}
    assert sorted(ranks_seen) == list(range(ranks)), result.stderr
    return ranks_seen, result.stderr


def test_a_large_temporary_is_resident_only_where_the_rank_touches_it(tmp_path):
    n, m, c, ranks = 50000, 200000, 32, 4
    h = n * c * 8  # 12.8 MB, int64
    tiny, _ = csr_run(tmp_path, 400, 1600, c, ranks, "tiny")
    large, stderr = csr_run(tmp_path, n, m, c, ranks, "large")
    assert stderr.count(f"its temporaries take up to {h + n} B more") == ranks
    for r in range(ranks):
        kept, resident = large[r]
        beyond = resident - tiny[r][1]
        assert beyond < kept + 0.75 * h, (r, kept, beyond, stderr)


READ = re.compile(r"rank (\d+): input 'col': read (\d+) B of")


def test_a_rank_reads_only_the_columns_of_its_rows(tmp_path):
    # col is read only as col[p] for p in range(ptr[i], ptr[i + 1]), i in the
    # rank's block: isl cannot bound those rows, ptr does once it is read.
    n, m, c, ranks = 2000, 20000, 8, 3
    ptr, col = power_law_graph(n, m, 11)
    _, stderr = csr_run(tmp_path, n, m, c, ranks, "cols")
    read = {int(r): int(b) for r, b in READ.findall(stderr)}
    assert sorted(read) == list(range(ranks)), stderr
    for r in range(ranks):
        lo, hi = n * r // ranks, n * (r + 1) // ranks
        span = int(ptr[hi] - ptr[lo])
        # The part starts up to 15 int32 early, so that col's origin keeps one process's alignment.
        assert 4 * span <= read[r] <= 4 * (span + 15), (r, span, stderr)
    assert sum(read.values()) < 4 * m + 4 * 16 * ranks


READ_PTR = re.compile(r"rank (\d+): input 'ptr': read (\d+) B of")


def test_a_rank_reads_only_the_row_pointers_of_its_rows(tmp_path):
    # The check that ptr's rows do not decrease runs distributed with the
    # rows (lowering/distributed/row_checks_by_rank): a rank reads
    # ptr[lo..hi], not the whole of it.
    n, m, c, ranks = 2000, 20000, 8, 3
    _, stderr = csr_run(tmp_path, n, m, c, ranks, "ptr")
    read = {int(r): int(b) for r, b in READ_PTR.findall(stderr)}
    assert sorted(read) == list(range(ranks)), stderr
    for r in range(ranks):
        lo, hi = n * r // ranks, n * (r + 1) // ranks
        # hi - lo + 1 pointers, the part starting up to 15 int32 early (alignment, as for col)
        assert 4 * (hi - lo + 1) <= read[r] <= 4 * (hi - lo + 1 + 15), (r, stderr)


def test_rows_out_of_order_in_one_ranks_block_stop_the_run(tmp_path):
    # Row 14 of 20 decreases: only rank 1's part of the check sees it, and the run stops naming it.
    n, m, c = 20, 200, 2
    inputs = mpi_runs.csr_inputs(n, m, c)
    inputs["ptr"][15] = inputs["ptr"][13] - 1
    args = [mpi_runs.TEML, "run", str(EXAMPLES / "csr.py"), "--cache-dir", str(tmp_path / "cache"),
            "--set", f"N={n}", "--set", f"M={m}", "--set", f"C={c}"]
    for name, value in inputs.items():
        np.save(tmp_path / f"{name}.npy", value)
        args += ["--input", f"{name}={tmp_path / f'{name}.npy'}"]
    for ranks in (1, 2, 3):
        result = subprocess.run(["mpirun", "-np", str(ranks)] + args, capture_output=True, text=True,
                                env=mpi_runs.ENV, timeout=120)
        assert result.returncode != 0, (ranks, result.stderr)
        assert "the rows of 'ptr' decrease after row 14" in result.stderr, (ranks, result.stderr)
