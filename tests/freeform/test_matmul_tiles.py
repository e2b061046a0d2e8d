"""Matrix products whose columns the automatic schedule's tiles of 128 do
not divide (docs/auto-schedule.md, register blocks): the tile is the
multiple of two vectors nearest 128 that divides the columns, or there are
no tiles; and a loop over tiles of columns with a short last tile runs on
threads without atomic updates (its column loops' bounds, min(...) of
min(...), still put each tile's columns apart: analysis/concurrency).
Whole numbers, checked against NumPy and the interpreter (--verify)."""
import re

import numpy as np

from conftest import EXAMPLES  # noqa: F401  (the conftest's TEML)


def matmul(rows, inner, columns, schedule=""):
    return f'''import teml


@teml.transform
def f(A: teml.Var[({rows}, {inner}), "float32"], B: teml.Var[({inner}, {columns}), "float32"],
      C: teml.Var[({rows}, {columns}), "float32", "output"]):
    #! label: Li
    for i in range({rows}):
        #! label: Lj
        for j in range({columns}):
            #! label: Lk
            for k in range({inner}):
                C[i, j] += A[i, k] * B[k, j]
{schedule}'''


def whole(shape, seed):
    return np.random.default_rng(seed).integers(-4, 5, shape).astype(np.float32)


def test_columns_that_128_does_not_divide_are_tiled_by_a_size_that_does(teml):
    A, B = whole((24, 320), 0), whole((320, 320), 1)
    out = teml.run(matmul(24, 320, 320), {"A": A, "B": B}, ["C"], extra=["-v"])
    np.testing.assert_array_equal(out["C"], A @ B)
    steps = teml.attempt(matmul(24, 320, 320), {"A": A, "B": B}, [], extra=["-v"]).stderr
    assert re.search(r's\.split\("Lj", 160\)', steps), steps  # 64 and 160 divide 320; 160 is nearer 128


def test_tiles_with_a_short_last_one_run_on_threads_without_atomics(teml):
    schedule = '''

@teml.schedule(f)
def schedule(s):
    jo, j = s.split("Lj", 128)
    ko, k = s.split("Lk", 128)
    s.reorder([jo, ko, "Li", j, k])
    s.split(j, 32)
    s.vectorize(j)
    s.parallelize(jo)
    s.unroll_and_jam("Li", 10)
    s.cache(ko, "B")
'''
    # The schedule teml chose for 832 columns before (12 rows here: a block of 10 and 2 more).
    A, B = whole((12, 200), 2), whole((200, 200), 3)
    r = teml.attempt(matmul(12, 200, 200, schedule), {"A": A, "B": B}, ["C"], extra=["-v", "--no-auto", "--threads", "2"])
    assert r.returncode == 0, r.stderr
    assert "atomic" not in r.stderr, r.stderr
    np.testing.assert_array_equal(np.load(teml.dir / "out_C.npy"), A @ B)
