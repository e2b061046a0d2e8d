"""`local` of a tensor the program defines around the loop (libop's
intermediates, `teml.empty` before a loop) moves the tensor into the loop:
each iteration then keeps only its own box (a row instead of the matrix),
checked as `local` of a program tensor is; a tensor also used outside the
loop, or whose elements two iterations share, is refused at the step."""
import numpy as np

from conftest import Teml

SOFTMAX = '''import teml
N = 37
M = 53


@teml.transform
def f(x: teml.Var[(N, M), "float32"]):
    return teml.libop.softmax(x, axis=-1)


@teml.schedule(f)
def s(s):
    s.reorder(["L90.0", "reduce"])
    s.reorder(["L88.0", "reduce#2"])
    a = s.fuse("L99.0", "L90.0")
    a = s.fuse(a, "L126.0")
    a = s.fuse(a, "L99.0#2")
    a = s.fuse(a, "L88.0")
    a = s.fuse(a, "L128.0")
    s.local(a, "y")
    s.local(a, "e")
    s.local(a, "y_2")
'''


def test_libops_intermediates_become_a_row_each(tmp_path):
    x = np.random.default_rng(1).standard_normal((37, 53)).astype(np.float32)
    t = Teml(tmp_path)
    out = t.run(SOFTMAX, {"x": x}, ["out"], extra=["--no-auto"])["out"]
    e = np.exp(x - x.max(1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(1, keepdims=True), rtol=1e-5)
    c = t.attempt(SOFTMAX, {"x": x}, [], extra=["--no-auto"], command="emit")
    assert "float e[1][53]" in c.stdout or "float e[53]" in c.stdout, c.stdout  # a row, not the matrix


USED_AFTER = '''import teml
N = 8


@teml.transform
def f(x: teml.Var[(N,), "float32"], y: teml.Var[(N,), "float32", "output"]):
    t = teml.empty((N,), "float32")
    #! label: L
    for i in range(N):
        t[i] = x[i] * 2.0
    for i in range(N):
        y[i] = t[i] + t[N - 1 - i]


@teml.schedule(f)
def s(s):
    s.local("L", "t")
'''


def test_a_tensor_used_after_the_loop_is_refused(tmp_path):
    r = Teml(tmp_path).attempt(USED_AFTER, {"x": np.ones(8, np.float32)}, ["y"])
    assert r.returncode == 1, r.stderr
    assert "program.py:17:5: error: local: 't' is used outside loop 'L' too" in r.stderr, r.stderr


SHARED = '''import teml
N = 8


@teml.transform
def f(x: teml.Var[(N,), "float32"], y: teml.Var[(N,), "float32", "output"]):
    t = teml.zeros((N,), "float32")
    #! label: L
    for i in range(N):
        t[i] = x[i] * 2.0
        y[i] = t[i] + t[N - 1 - i]


@teml.schedule(f)
def s(s):
    s.local("L", "t")
'''


def test_a_tensor_whose_elements_iterations_share_is_refused(tmp_path):
    r = Teml(tmp_path).attempt(SHARED, {"x": np.ones(8, np.float32)}, ["y"])
    assert r.returncode == 1, r.stderr
    assert "program.py:16:5: error: local:" in r.stderr, r.stderr
    assert "internal error" not in r.stderr
