"""Indexed gathers (docs/distributed.md, "Gathers through indices"): a
distributed step that reads rows of a tensor other ranks computed through
indices loaded from data (a GAT-like layer: h[col[p]] over the edges of a
rank's rows) receives only the rows its edges name, found by an inspector
that runs the step's index computations first. On a power-law graph at 1-4
ranks the results equal one process, and each rank receives exactly the
rows its edges name that another rank holds (counted from the graph), fewer
per rank as ranks are added; the plan's bound (every row, as a replicated
gather moved) is printed as "at most"."""
import re

import numpy as np
import pytest

import test_mpi_runs as mpi_runs
from test_mpi_runs import EXAMPLES

GATHER = re.compile(r"rank (\d+): indexed gather of 'h': at most (\d+) B sent, (\d+) B received; "
                    r"moved (\d+) B sent, (\d+) B received \(the rows its indices name\)")


def power_law_graph(n, m, seed):
    """CSR rows of n nodes with m edges whose columns follow a power law (a few nodes named by many edges)."""
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(m, np.ones(n) / n)
    ptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    col = (np.minimum(rng.zipf(1.6, m), n) - 1).astype(np.int32)
    rng.shuffle(col)
    return ptr, col


def block(n, ranks, r):
    return n * r // ranks, n * (r + 1) // ranks


def test_each_rank_receives_the_rows_its_edges_name(tmp_path):
    n, m, c = 2000, 20000, 8
    ptr, col = power_law_graph(n, m, 11)
    x = np.random.default_rng(12).integers(-50, 50, (n, c)).astype(np.int64)
    inputs = {"ptr": ptr, "col": col, "x": x, "total": np.zeros(c, np.int64)}
    sizes = {"N": n, "M": m, "C": c}
    program = EXAMPLES / "csr.py"
    alone, _ = mpi_runs.run(tmp_path, program, sizes, inputs, ["y", "total"], tag="alone")
    most = {}
    for ranks in (2, 3, 4):
        together, result = mpi_runs.run(tmp_path, program, sizes, inputs, ["y", "total"], ranks, str(ranks),
                                        extra=["-v", "--threads", "1"])
        np.testing.assert_array_equal(together["y"], alone["y"])
        np.testing.assert_array_equal(together["total"], alone["total"])
        moved = {int(r): tuple(map(int, rest)) for r, *rest in GATHER.findall(result.stderr)}
        assert sorted(moved) == list(range(ranks)), result.stderr
        sent = [0] * ranks
        for r in range(ranks):
            lo, hi = block(n, ranks, r)
            named = np.unique(col[ptr[lo]:ptr[hi]])
            elsewhere = named[(named < lo) | (named >= hi)]
            bound_sent, bound_received, moved_sent, moved_received = moved[r]
            assert moved_received == 8 * c * elsewhere.size, (r, result.stderr)
            assert bound_received == 8 * c * (n - (hi - lo))  # what the replicated gather moved
            for q in range(ranks):
                qlo, qhi = block(n, ranks, q)
                sent[q] += 8 * c * int(((elsewhere >= qlo) & (elsewhere < qhi)).sum())
        for r in range(ranks):
            assert moved[r][2] == sent[r], (r, result.stderr)
        most[ranks] = max(v[3] for v in moved.values())
    assert most[4] < most[3] < most[2]


@pytest.mark.parametrize("ranks", [2, 4])
def test_an_index_computed_in_the_step_keeps_the_whole_gather(tmp_path, ranks):
    # The row a statement reads comes from a local the step computes: the
    # inspector cannot name it, and every rank gets every row as before.
    path = tmp_path / "computed.py"
    path.write_text('''import teml


@teml.transform
def f(idx: teml.Var[(N,), "int32"], x: teml.Var[(N,), "int64"], y: teml.Var[(N,), "int64", "output"]):
    h = teml.empty((N,), "int64")
    #! label: Lh
    for i in range(N):
        h[i] = x[i] * 2
    #! label: Ly
    for i in range(N):
        j = teml.empty((), "int32")
        j[()] = idx[i] % N
        y[i] = h[j[()]] + 1


@teml.schedule(f)
def schedule(s):
    s.distribute("Lh")
    s.distribute("Ly")
''')
    n = 50
    rng = np.random.default_rng(3)
    inputs = {"idx": rng.integers(0, 1000, n).astype(np.int32), "x": rng.integers(-9, 9, n)}
    out, result = mpi_runs.run(tmp_path, path, {"N": n}, inputs, ["y"], ranks, extra=["-v"])
    np.testing.assert_array_equal(out["y"], inputs["x"][inputs["idx"] % n] * 2 + 1)
    assert "gather of 'h'" in result.stderr and "indexed gather" not in result.stderr, result.stderr


def test_a_gather_inside_a_grid_asks_for_the_rows_of_its_grid_row(tmp_path):
    # h is computed on all 4 ranks; y, on a 2 x 2 grid, reads h[idx[i]] (an
    # index check around the inner loop). The inspector keeps the inner
    # distributed loop although its marks do not move with j: it places the
    # rank in its grid row.
    path = tmp_path / "grid.py"
    path.write_text('''import teml


@teml.transform
def f(idx: teml.Var[(N,), "int32"], x: teml.Var[(N,), "int64"], y: teml.Var[(N, M), "int64", "output"]):
    h = teml.empty((N,), "int64")
    #! label: Lh
    for i in range(N):
        h[i] = x[i] * 2
    #! label: Ly
    for i in range(N):
        #! label: Ly_j
        for j in range(M):
            y[i, j] = h[idx[i]] + j


@teml.schedule(f)
def schedule(s):
    s.distribute("Lh")
    s.distribute("Ly")
    s.distribute("Ly_j")
''')
    n, m = 40, 6
    rng = np.random.default_rng(8)
    inputs = {"idx": rng.integers(0, n, n).astype(np.int32), "x": rng.integers(-9, 9, n)}
    out, result = mpi_runs.run(tmp_path, path, {"N": n, "M": m}, inputs, ["y"], 4, extra=["-v", "--ranks-grid", "2x2"])
    np.testing.assert_array_equal(out["y"], (inputs["x"][inputs["idx"]] * 2)[:, None] + np.arange(m)[None, :])
    assert "indexed gather of 'h'" in result.stderr, result.stderr
