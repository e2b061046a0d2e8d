"""Reductions into rows other ranks own (docs/distributed.md, "Reductions
into rows other ranks own"): where the ranks reduce into a tensor through
indices loaded from data (`g[col[p], c] +=`), each rank owns a block of its
rows, starts the others at the identity, and after the step sends the rows
it changed to their owners, which combine them. Only those rows move, and a
distributed loop over the rows afterwards reads its own without an exchange."""
import re

import numpy as np
import pytest

import test_mpi_runs as mpi_runs
from test_mpi_indexed_gathers import block, power_law_graph
from test_mpi_runs import EXAMPLES

SCATTER = EXAMPLES / "scatter.py"
TO_OWNERS = re.compile(r"rank (\d+): reduction to owners of '(\S+)': at most (\d+) B sent, (\d+) B received; "
                       r"moved (\d+) B sent, (\d+) B received")


def scatter_inputs(n, m, c, seed):
    ptr, col = power_law_graph(n, m, seed)
    # Positive features: a row a rank adds to never sums back to zero.
    x = np.random.default_rng(seed).integers(1, 50, (n, c)).astype(np.int64)
    return {"ptr": ptr, "col": col, "x": x}


def test_one_rank_count_after_another_writes_what_one_process_writes(tmp_path):
    n, m, c = 701, 6000, 5
    inputs = scatter_inputs(n, m, c, 21)
    sizes = {"N": n, "M": m, "C": c}
    alone, _ = mpi_runs.run(tmp_path, SCATTER, sizes, inputs, ["g", "y"], tag="alone")
    p = np.arange(m)
    expected = np.zeros((n, c), np.int64)
    rows = np.repeat(np.arange(n), np.diff(inputs["ptr"]))
    np.add.at(expected, inputs["col"], inputs["x"][rows] * (p % 7 + 1)[:, None])
    np.testing.assert_array_equal(alone["g"], expected)
    for ranks in (1, 2, 3, 4):
        # A lost or doubled row shows in the integers.
        together, _ = mpi_runs.run(tmp_path, SCATTER, sizes, inputs, ["g", "y"], ranks, str(ranks),
                                   extra=["--threads", "1"])
        np.testing.assert_array_equal(together["g"], alone["g"], err_msg=f"{ranks} ranks")
        np.testing.assert_array_equal(together["y"], alone["y"], err_msg=f"{ranks} ranks")


@pytest.mark.parametrize("ranks", [2, 3, 4])
def test_each_rank_sends_its_owners_the_rows_its_edges_name(tmp_path, ranks):
    n, m, c = 2000, 20000, 8
    inputs = scatter_inputs(n, m, c, 11)
    ptr, col = inputs["ptr"], inputs["col"]
    _, result = mpi_runs.run(tmp_path, SCATTER, {"N": n, "M": m, "C": c}, inputs, ["g", "y"], ranks,
                             extra=["-v", "--threads", "1"])
    moved = {int(r): tuple(map(int, rest)) for r, name, *rest in TO_OWNERS.findall(result.stderr) if name == "g"}
    assert sorted(moved) == list(range(ranks)), result.stderr
    slot = 8 + 8 * c  # a row and its number
    sent, received = [0] * ranks, [0] * ranks
    for r in range(ranks):
        lo, hi = block(n, ranks, r)
        named = np.unique(col[ptr[lo]:ptr[hi]])
        for q in range(ranks):
            qlo, qhi = block(n, ranks, q)
            if q != r:
                rows = int(((named >= qlo) & (named < qhi)).sum())
                sent[r] += rows * slot
                received[q] += rows * slot
    for r in range(ranks):
        bound_sent, bound_received, moved_sent, moved_received = moved[r]
        lo, hi = block(n, ranks, r)
        assert (moved_sent, moved_received) == (sent[r], received[r]), (r, result.stderr)
        # The plan's bound: every row others own out, every other rank's copy of this one's rows in.
        assert (bound_sent, bound_received) == ((n - (hi - lo)) * slot, (hi - lo) * (ranks - 1) * slot)
    # The update loop's block is the block of g its rank owns: nothing of g moves before it.
    assert not re.search(r"(halo|broadcast|gather) of 'g'", result.stderr), result.stderr


@pytest.mark.parametrize("ranks", [2, 3])
def test_a_running_maximum_through_indices_goes_to_owners_too(tmp_path, ranks):
    # max= starts unowned rows at the smallest int64 and floats at -inf: rows
    # whose values are all negative must still win over what the owner holds.
    program = tmp_path / "scatter_max.py"
    program.write_text('''import teml


@teml.transform
def f(ptr: teml.Var[(N + 1,), "int32"], col: teml.Var[(M,), "int32"], x: teml.Var[(N, C), "int64"],
      v: teml.Var[(N, C), "float32"], a: teml.Var[(N, C), "int64", "inout"], b: teml.Var[(N, C), "float32", "inout"]):
    #! label: L
    for i in range(N):
        for p in range(ptr[i], ptr[i + 1]):
            for c in range(C):
                a[col[p], c] = max(a[col[p], c], x[i, c] - p)
                b[col[p], c] = max(b[col[p], c], v[i, c] * p)


@teml.schedule(f)
def schedule(s):
    s.distribute("L")
''')
    n, m, c = 300, 2500, 3
    ptr, col = power_law_graph(n, m, 5)
    rng = np.random.default_rng(6)
    inputs = {"ptr": ptr, "col": col, "x": rng.integers(-100, 0, (n, c)).astype(np.int64),
              "v": -rng.random((n, c), np.float32) - 1,
              "a": np.full((n, c), -10**12, np.int64), "b": np.full((n, c), -1e30, np.float32)}
    sizes = {"N": n, "M": m, "C": c}
    alone, _ = mpi_runs.run(tmp_path, program, sizes, inputs, ["a", "b"], tag="alone")
    together, result = mpi_runs.run(tmp_path, program, sizes, inputs, ["a", "b"], ranks, extra=["-v"])
    assert "reduction to owners of 'a'" in result.stderr and "reduction to owners of 'b'" in result.stderr, result.stderr
    np.testing.assert_array_equal(together["a"], alone["a"])
    np.testing.assert_array_equal(together["b"], alone["b"])
