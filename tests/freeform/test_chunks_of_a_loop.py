"""`parallelize` of the outer loop of a split asks whether different chunks
touch an element in common. teml first asks about the loop the chunks came
from (one loop: much faster for isl); where that loop's iterations meet, but
only within a chunk, the chunks are still independent and run on threads."""
import numpy as np

from conftest import Teml

LAST_OF_EACH_BLOCK = '''import teml
N = 64


@teml.transform
def f(x: teml.Var[(N,), "int64"], y: teml.Var[(N // 16,), "int64", "output"]):
    #! label: L
    for i in range(N):
        y[i // 16] = x[i]


@teml.schedule(f)
def s(s):
    o, i = s.split("L", 16)
    s.parallelize(o)
'''


def test_iterations_that_meet_only_within_a_chunk_leave_the_chunks_independent(tmp_path):
    x = np.arange(100, 164, dtype=np.int64)
    out = Teml(tmp_path).run(LAST_OF_EACH_BLOCK, {"x": x}, ["y"], extra=["--no-auto", "--threads", "4"])["y"]
    np.testing.assert_array_equal(out, x[15::16])


def test_chunks_that_split_a_block_are_refused(tmp_path):
    # blocks of 16 cut into chunks of 8: two chunks write each y[k]
    text = LAST_OF_EACH_BLOCK.replace('s.split("L", 16)', 's.split("L", 8)')
    r = Teml(tmp_path).attempt(text, {"x": np.arange(64, dtype=np.int64)}, ["y"], extra=["--no-auto"])
    assert r.returncode == 1 and "parallelize" in r.stderr, r.stderr
