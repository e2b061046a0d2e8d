"""Grids of ranks (docs/distributed.md, "Grids of ranks"): two distributed
loops of a nest, the inner one the whole body of the outer one, split over
rows x columns of ranks (the grid whose exchanges the model predicts
shortest, or `--ranks-grid RxC`). A 2-D
heat stencil (100 time steps) and a matrix product of two computed matrices
under mpirun write what one process writes, bit for bit; each rank moves
exactly the rows and columns next to its block per half step, and the
product moves what SUMMA broadcasts (its rank row's part of A, its rank
column's part of B), both as predicted and in closed form."""
import subprocess

import numpy as np
import pytest

import test_mpi_runs as mpi_runs
from test_mpi_runs import ENV, EXAMPLES, TEML
from test_mpi_time_loops import HALO

HEAT = EXAMPLES / "heat2d_blocks.py"

# A2 = 2 A + 1 and B2 = B - 3 computed on the grid, then C = A2 B2 (float64 holding
# small integers: every sum exact).
PRODUCT = EXAMPLES / "mm_grid.py"


def run(tmp_path, program, sizes, inputs, outputs, ranks=None, tag="", grid=None):
    extra = ["--threads", "1", "-v"] + (["--ranks-grid", grid] if grid else [])
    return mpi_runs.run(tmp_path, program, sizes, inputs, outputs, ranks, tag, extra=extra)


def moved(result, steps=None):
    """(rank, tensor) -> (predicted sent, received, moved sent, received), summed over the
    exchanges; with `steps`, per time step, of the exchanges every step (or every step after
    the first, planned apart where the blocks before the time loop differ) runs."""
    out = {}
    for rank, tensor, sent, received, times, moved_sent, moved_received in HALO.findall(result.stderr):
        amounts = [int(x) for x in (sent, received, moved_sent, moved_received)]
        if steps is not None:
            if int(times or 1) < steps - 1:
                continue
            amounts = [x // int(times) for x in amounts]
        old = out.get((int(rank), tensor), (0, 0, 0, 0))
        out[(int(rank), tensor)] = tuple(a + b for a, b in zip(old, amounts))
    return out


def block(n, parts, k, begin=0):
    return begin + n * k // parts, begin + n * (k + 1) // parts


def size(n, parts, k):
    lo, hi = block(n, parts, k)
    return hi - lo


@pytest.mark.parametrize("ranks,grid", [(2, None), (3, None), (4, None), (4, "1x4"), (6, "3x2")])
def test_heat_2d_in_blocks_moves_the_rows_and_columns_next_to_each_block(tmp_path, ranks, grid):
    n, m, steps = 23, 17, 100
    u0 = np.random.default_rng(2).random((n, m))
    sizes = {"N": n, "M": m, "T": steps}
    alone, _ = run(tmp_path, HEAT, sizes, {"u0": u0}, ["u"], tag="alone")
    together, result = run(tmp_path, HEAT, sizes, {"u0": u0}, ["u"], ranks, grid=grid)
    np.testing.assert_array_equal(together["u"], alone["u"])  # each point computed as one process does
    rows = int(grid.split("x")[0]) if grid else {2: 2, 3: 3, 4: 2}[ranks]
    cols = ranks // rows
    got = moved(result, steps)
    for r in range(ranks):
        # The half steps run the interior, rows [1, n-1) x columns [1, m-1): a
        # rank sends its block's edge row to the rank above and below, and its
        # edge column to the rank left and right, every half step (per time
        # step, as the exchanges of the steps after the first are counted).
        lo, hi = block(n - 2, rows, r // cols, 1)
        left, right = block(m - 2, cols, r % cols, 1)
        vertical = (r // cols > 0) + (r // cols < rows - 1)
        horizontal = (r % cols > 0) + (r % cols < cols - 1)
        want = 8 * (vertical * (right - left) + horizontal * (hi - lo))
        for tensor in ("u", "v"):
            assert got.get((r, tensor), (0, 0, 0, 0)) == (want, want, want, want), (r, tensor, result.stderr)


def test_a_product_of_computed_matrices_moves_what_summa_broadcasts(tmp_path):
    n, k, m = 30, 20, 26
    rng = np.random.default_rng(3)
    a, b = rng.integers(-9, 9, (n, k)).astype(np.float64), rng.integers(-9, 9, (k, m)).astype(np.float64)
    sizes = {"N": n, "K": k, "M": m}
    together, result = run(tmp_path, PRODUCT, sizes, {"A": a, "B": b}, ["C"], 4)
    np.testing.assert_array_equal(together["C"], (a * 2 + 1) @ (b - 3))
    got = moved(result)
    for r in range(4):
        row, col = r // 2, r % 2
        # A2's rows of this rank row, the columns the other rank of the row computed;
        # B2's columns of this rank column, the rows the other rank of the column computed.
        want_a = 8 * size(n, 2, row) * size(k, 2, 1 - col)
        want_b = 8 * size(k, 2, 1 - row) * size(m, 2, col)
        assert got[(r, "A2")][1::2] == (want_a, want_a), result.stderr  # received, predicted and moved
        assert got[(r, "B2")][1::2] == (want_b, want_b), result.stderr


@pytest.mark.parametrize("grid", ["2x1", "1x2"])
def test_the_grid_product_example_on_two_ranks_equals_numpy(tmp_path, grid):
    # timed in bench/distributed.md
    n, k, m = 21, 17, 19
    rng = np.random.default_rng(4)
    a, b = rng.integers(-9, 9, (n, k)).astype(np.float64), rng.integers(-9, 9, (k, m)).astype(np.float64)
    together, _ = run(tmp_path, PRODUCT, {"N": n, "K": k, "M": m}, {"A": a, "B": b}, ["C"], 2,
                      grid=grid)
    np.testing.assert_array_equal(together["C"], (a * 2 + 1) @ (b - 3))


def test_check_and_mpirun_agree_on_grids(tmp_path):
    sizes = ["--set", "N=23", "--set", "M=17", "--set", "T=5"]
    for ranks in (2, 4):
        check = subprocess.run([TEML, "check", str(HEAT), *sizes, "--ranks", str(ranks)], capture_output=True,
                               text=True, env=ENV, timeout=120)
        assert check.returncode == 0, check.stderr
    wrong = subprocess.run([TEML, "check", str(HEAT), *sizes, "--ranks", "4", "--ranks-grid", "3x2"],
                           capture_output=True, text=True, env=ENV, timeout=120)
    assert wrong.returncode != 0 and "--ranks-grid 3x2 is not 4 ranks" in wrong.stderr, wrong.stderr
    np.save(tmp_path / "u0.npy", np.zeros((23, 17)))
    under_mpirun = subprocess.run(["mpirun", "-np", "4", TEML, "run", str(HEAT), *sizes, "--ranks-grid", "3x2",
                                   "--input", f"u0={tmp_path / 'u0.npy'}", "--cache-dir", str(tmp_path / "cache")],
                                  capture_output=True, text=True, env=ENV, timeout=120)
    assert under_mpirun.returncode == wrong.returncode, under_mpirun.stderr
    assert "--ranks-grid 3x2 is not 4 ranks" in under_mpirun.stderr, under_mpirun.stderr


@pytest.mark.parametrize("m,grid", [(40, "4x1"), (1000, "2x2")])
def test_the_model_chooses_the_grid_with_the_shortest_exchanges(m, grid):
    # Rows of 40 points are shorter halos than the columns of a 2 x 2 grid; on a square
    # grid of 1000 points a side, 2 x 2 sends half what 4 x 1 does.
    check = subprocess.run([TEML, "check", str(HEAT), "--set", "N=1000", "--set", f"M={m}", "--set", "T=5",
                            "--ranks", "4", "-v"], capture_output=True, text=True, env=ENV, timeout=300)
    assert check.returncode == 0, check.stderr
    assert f"teml: grid of ranks {grid} (--ranks-grid)" in check.stderr, check.stderr


SUMS_INTO_SCALARS = '''import teml


@teml.transform
def f(x: teml.Var[(N, M), "int64"], y: teml.Var[(N, M), "int64", "output"], s: teml.Var[(), "int64", "output"],
      m: teml.Var[(), "int64", "output"]):
    m[()] = -1000000
    #! label: Li
    for i in range(N):
        #! label: Lj
        for j in range(M):
            y[i, j] = x[i, j] * 3 + i - j
            s[()] += x[i, j] * (i + 1)
            m[()] = max(m[()], x[i, j] - i * j)


@teml.schedule(f)
def schedule(s):
    s.distribute("Li")
    s.distribute("Lj")
    s.parallelize("Lj")
'''

COPY = "A = tensor([N, M])\nB = eq(A, [i, j] -> [i, j])\nl = build(B)\nl1 = distribute(l, 1)\n"


@pytest.mark.parametrize("grid", ["2x2", "1x4", "4x1"])
def test_sums_into_scalars_on_threads_inside_a_grid(tmp_path, grid):
    # The lowering puts each thread's accumulators between the grid's two
    # loops: every rank of a grid row runs them for its columns, and the
    # ranks' partial sums and maxima are combined.
    path = tmp_path / "sums.py"
    path.write_text(SUMS_INTO_SCALARS)
    x = np.random.default_rng(5).integers(-50, 50, (23, 17))
    i, j = np.arange(23)[:, None], np.arange(17)[None, :]
    out, _ = mpi_runs.run(tmp_path, path, {"N": 23, "M": 17}, {"x": x}, ["y", "s", "m"], 4, grid,
                          extra=["--threads", "2", "--ranks-grid", grid])
    np.testing.assert_array_equal(out["y"], x * 3 + i - j)
    assert out["s"] == (x * (i + 1)).sum() and out["m"] == (x - i * j).max()


@pytest.mark.parametrize("distributed", ["codegen(l1)", "l2 = distribute(l1, 2)\ncodegen(l2)"])
def test_a_distributed_copy_copies_each_ranks_block(tmp_path, distributed):
    # A copy nest was written as one flat copy of the whole range before the
    # ranks' bounds were set: every rank copied every row, past the span it
    # keeps (heap corruption, an abort at 4 ranks).
    path = tmp_path / "copy.teml"
    path.write_text(COPY + distributed + "\n")
    a = np.arange(700 * 500, dtype=np.float64).reshape(700, 500)
    for ranks in (2, 4):
        out, _ = mpi_runs.run(tmp_path, path, {"N": 700, "M": 500}, {"A": a}, ["B"], ranks, str(ranks))
        np.testing.assert_array_equal(out["B"], a)
