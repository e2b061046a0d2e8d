"""Gradients under mpirun (docs/distributed.md, "Running"): `teml grad`
of a free-form program splits the gradient program's loops over the ranks
by the automatic distribution, forward and backward nests alike, and writes
what one process writes. A backward nest that scatters into its
neighbours' rows (the gradient of a stencil) combines across the ranks only
the rows two ranks reduce into, the edges of their blocks, not the tensor."""
import re
import subprocess

import numpy as np
import pytest

import test_mpi_indexed_gathers as gathers
import test_mpi_runs as mpi_runs
from test_mpi_runs import ENV, EXAMPLES, TEML

STENCIL = (EXAMPLES / "stencil_gradient.py").read_text()

GAT = '''import teml


@teml.transform
def layer(ptr: teml.Var[(N + 1,), "int32"], col: teml.Var[(M,), "int32"], x: teml.Var[(N, C), "float64"],
          w: teml.Var[(C,), "float64"], y: teml.Var[(N, C), "float64", "output"]):
    h = teml.empty((N, C), "float64")
    for i in range(N):
        for c in range(C):
            h[i, c] = x[i, c] * w[c]
    for i in range(N):
        for p in range(ptr[i], ptr[i + 1]):
            for c in range(C):
                y[i, c] += teml.exp(-abs(h[col[p], c] - h[i, c])) * h[col[p], c]
'''


def grad(tmp_path, text, sizes, inputs, wrt, of, ranks=None, extra=()):
    """`teml grad` of the program `text` (under mpirun with `ranks`): {name: name's gradient}."""
    program = tmp_path / "program.py"
    program.write_text(text)
    options = ["--wrt", ",".join(wrt), "--of", ",".join(of), "--threads", "1", *extra]
    out, result = mpi_runs.run(tmp_path, program, sizes, inputs, [f"{n}.grad" for n in wrt], ranks, str(ranks or 0),
                               options, command="grad")
    return {n: out[f"{n}.grad"] for n in wrt}, result


def test_a_stencils_gradient_splits_and_combines_only_the_edges_of_the_blocks(tmp_path):
    n, c = 200_000, 16
    rng = np.random.default_rng(1)
    inputs = {"x": rng.standard_normal((n, c)), "w": 0.3 * rng.standard_normal(c)}
    alone, _ = grad(tmp_path, STENCIL, {"N": n, "C": c}, inputs, ["x", "w"], ["y"])
    for ranks in (2, 3, 4):
        together, result = grad(tmp_path, STENCIL, {"N": n, "C": c}, inputs, ["x", "w"], ["y"], ranks, ["-v"])
        # Each element of x.grad sums its terms in the same order in every rank count.
        np.testing.assert_array_equal(together["x"], alone["x"])
        np.testing.assert_allclose(together["w"], alone["w"], rtol=1e-12)
        assert f"iterations [0, {n // ranks}) of [0, {n})" in result.stderr, result.stderr
        # x.grad[i - 1] and x.grad[i + 1] reach one row into each neighbour's block:
        # between two blocks, the two rows around the edge are summed across the ranks.
        edges = re.findall(r"rank 0: reduction of 'x\.grad': predicted (\d+) B sent", result.stderr)
        assert [int(b) for b in edges] == [2 * c * 8] * (ranks - 1), result.stderr


@pytest.mark.parametrize("ranks", [1, 2, 4])
def test_a_gat_like_layers_gradient_equals_one_process(tmp_path, ranks):
    n, m, c = 500, 4000, 8
    ptr, col = gathers.power_law_graph(n, m, 3)
    rng = np.random.default_rng(4)
    inputs = {"ptr": ptr, "col": col, "x": rng.standard_normal((n, c)), "w": rng.standard_normal(c)}
    sizes = {"N": n, "M": m, "C": c}
    alone, _ = grad(tmp_path, GAT, sizes, inputs, ["x", "w"], ["y"])
    together, _ = grad(tmp_path, GAT, sizes, inputs, ["x", "w"], ["y"], ranks)
    for name in ("x", "w"):
        np.testing.assert_allclose(together[name], alone[name], rtol=1e-12, atol=1e-12)


def test_a_teml_program_without_auto_runs_whole_in_every_rank(tmp_path):
    # Hand schedules describe the forward program's loops: without --auto
    # a .teml gradient is not split, and rank 0 writes what one process writes.
    program = EXAMPLES.parent / "mm" / "naive.teml"
    rng = np.random.default_rng(5)
    np.save(tmp_path / "A.npy", rng.standard_normal((8, 8)))
    np.save(tmp_path / "B.npy", rng.standard_normal((8, 8)))
    outs = []
    for ranks in (None, 2):
        args = [TEML, "grad", str(program), "--set", "N=8", "--wrt", "A", "--of", "C", "--cache-dir",
                str(tmp_path / "cache"), "--input", f"A={tmp_path / 'A.npy'}", "--input", f"B={tmp_path / 'B.npy'}",
                "--output", f"A.grad={tmp_path / f'g{ranks}.npy'}"]
        if ranks:
            args = ["mpirun", "-np", str(ranks)] + args
        result = subprocess.run(args, capture_output=True, text=True, env=ENV, timeout=300)
        assert result.returncode == 0, result.stderr
        assert "distributed loop" not in result.stderr
        outs.append(np.load(tmp_path / f"g{ranks}.npy"))
    # dC/dA with weights of one: every row of A.grad is the row sums of B.
    b = np.load(tmp_path / "B.npy")
    np.testing.assert_allclose(outs[0], np.tile(b.sum(axis=1), (8, 1)), rtol=1e-12)
    np.testing.assert_array_equal(outs[1], outs[0])
