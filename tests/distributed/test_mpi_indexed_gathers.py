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
                    r"moved (\d+) B sent, (\d+) B received \(the rows its indices name, asked for (\d+) times?\)")


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
        # h and its marks (a bool per row) are allocated whole in every rank, and -v says so.
        assert result.stderr.count(f"its temporaries take up to {n * c * 8 + n} B more") == ranks
        sent = [0] * ranks
        for r in range(ranks):
            lo, hi = block(n, ranks, r)
            named = np.unique(col[ptr[lo]:ptr[hi]])
            elsewhere = named[(named < lo) | (named >= hi)]
            bound_sent, bound_received, moved_sent, moved_received, asked = moved[r]
            assert asked == 1
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


def diffused(ptr, col, u0, steps):
    u = u0.copy()
    for _ in range(steps):
        v = u.copy()
        for i in range(len(ptr) - 1):
            for p in range(ptr[i], ptr[i + 1]):
                v[i] += u[col[p]] - u[i]
        u = np.mod(v, 1000003)
    return u


def test_a_time_loop_asks_for_its_rows_once_and_moves_them_every_step(tmp_path):
    # The graph does not change inside the time loop: the inspector and the
    # requests run once before it, the rows move in every step. The loop's
    # first iteration is planned apart (what ranks hold before it differs),
    # so it has its own gather, asked for once too.
    n, m, c, steps = 300, 2400, 4, 5
    ptr, col = power_law_graph(n, m, 5)
    u0 = np.random.default_rng(1).integers(-50, 50, (n, c)).astype(np.int64)
    inputs = {"ptr": ptr, "col": col, "u0": u0}
    sizes = {"N": n, "M": m, "C": c, "T": steps}
    program = EXAMPLES / "graph_diffusion.py"
    expected = diffused(ptr, col, u0, steps)
    for ranks in (2, 3, 4):
        out, result = mpi_runs.run(tmp_path, program, sizes, inputs, ["u"], ranks, str(ranks), extra=["-v", "--threads", "1"])
        np.testing.assert_array_equal(out["u"], expected)
        looped = re.compile(r"rank (\d+): indexed gather of 'u': at most \d+ B sent, \d+ B received \((\d+) times\); "
                            r"moved \d+ B sent, (\d+) B received \(the rows its indices name, asked for (\d+) times?\)")
        found = looped.findall(result.stderr)
        assert len(found) == ranks, result.stderr
        for r, times, received, asked in map(lambda row: tuple(map(int, row)), found):
            lo, hi = block(n, ranks, r)
            named = np.unique(col[ptr[lo]:ptr[hi]])
            elsewhere = named[(named < lo) | (named >= hi)]
            assert times == steps - 1 and asked == 1, result.stderr
            assert received == times * 8 * c * elsewhere.size, (r, result.stderr)


def test_an_index_the_time_loop_rewrites_is_inspected_in_every_step(tmp_path):
    # The columns move by one node each step: the inspector stays in the
    # loop, and each step asks for the rows of its own columns.
    path = tmp_path / "moving.py"
    path.write_text('''import teml


@teml.transform
def f(col: teml.Var[(N,), "int32"], x: teml.Var[(N,), "int64"], u: teml.Var[(N,), "int64", "output"]):
    idx = teml.empty((N,), "int32")
    v = teml.empty((N,), "int64")
    #! label: Lstart
    for i in range(N):
        u[i] = x[i]
        idx[i] = col[i]
    for t in range(T):
        #! label: Lstep
        for i in range(N):
            v[i] = u[i] + u[idx[i]] % 7
        #! label: Lmove
        for i in range(N):
            u[i] = v[i]
            idx[i] = (idx[i] + 1) % N


@teml.schedule(f)
def schedule(s):
    s.distribute("Lstart")
    s.distribute("Lstep")
    s.distribute("Lmove")
''')
    n, steps = 60, 4
    rng = np.random.default_rng(2)
    inputs = {"col": rng.integers(0, n, n).astype(np.int32), "x": rng.integers(-50, 50, n)}
    alone, _ = mpi_runs.run(tmp_path, path, {"N": n, "T": steps}, inputs, ["u"], tag="alone")
    out, result = mpi_runs.run(tmp_path, path, {"N": n, "T": steps}, inputs, ["u"], 3, extra=["-v", "--threads", "1"])
    np.testing.assert_array_equal(out["u"], alone["u"])
    asked = [int(a) for a in re.findall(r"indexed gather of 'u': .*asked for (\d+) times?", result.stderr)]
    assert asked and max(asked) == steps - 1, result.stderr


def test_a_later_call_keeps_the_plan_while_the_rows_named_are_the_same(tmp_path):
    # `teml bench` calls the kernel many times with the same graph: the -v
    # report of the last call shows no requests, and the same rows moved.
    n, m, c = 300, 2400, 4
    ptr, col = power_law_graph(n, m, 5)
    files = []
    for name, value in {"ptr": ptr, "col": col, "x": np.ones((n, c), np.int64)}.items():
        np.save(tmp_path / f"{name}.npy", value)
        files += ["--input", f"{name}={tmp_path / f'{name}.npy'}"]
    sizes = ["--set", f"N={n}", "--set", f"M={m}", "--set", f"C={c}"]
    common = [str(EXAMPLES / "csr.py"), "--cache-dir", str(tmp_path / "cache"), *sizes, *files, "-v", "--threads", "1"]
    ran = mpi_runs.subprocess.run(["mpirun", "-np", "2", mpi_runs.TEML, "run", *common], capture_output=True, text=True,
                                  env=mpi_runs.ENV, timeout=300)
    benched = mpi_runs.subprocess.run(["mpirun", "-np", "2", mpi_runs.TEML, "bench", *common, "--runs", "3"],
                                      capture_output=True, text=True, env=mpi_runs.ENV, timeout=300)
    assert ran.returncode == 0 and benched.returncode == 0, ran.stderr + benched.stderr
    line = re.compile(r"rank (\d+): indexed gather of 'h': .*moved (\d+) B sent, (\d+) B received "
                      r"\(the rows its indices name, asked for (\d+) times?\)")
    first = {r: (s, rc, a) for r, s, rc, a in line.findall(ran.stderr)}
    later = {r: (s, rc, a) for r, s, rc, a in line.findall(benched.stderr)}
    assert sorted(first) == sorted(later) == ["0", "1"], ran.stderr + benched.stderr
    for r in first:
        assert first[r][2] == "1" and later[r][2] == "0"
        assert first[r][:2] == later[r][:2] and int(first[r][1]) > 0
