"""The automatic schedule fuses loops that hand an intermediate from one to
the next when that lets the intermediate shrink to what one iteration uses
(docs/auto-schedule.md, "fuse intermediates"): libop's softmax keeps a row
of exp(x - max) instead of the matrix. Where no intermediate would shrink,
the loops stay as written."""
import numpy as np

from conftest import Teml

SOFTMAX = '''import teml
N = 37
M = 53


@teml.transform
def f(x: teml.Var[(N, M), "float32"]):
    return teml.libop.softmax(x, axis=-1)
'''


def test_libops_softmax_keeps_a_row_of_its_intermediate(tmp_path):
    x = np.random.default_rng(2).standard_normal((37, 53)).astype(np.float32)
    t = Teml(tmp_path)
    r = t.attempt(SOFTMAX, {"x": x}, ["out"], extra=["-v"])
    assert r.returncode == 0, r.stderr
    for step in ['s.fuse("L99.0", "L126.0")', 's.local("L99.0", "e")']:
        assert step in r.stderr, r.stderr
    e = np.exp(x - x.max(1, keepdims=True))
    np.testing.assert_allclose(np.load(tmp_path / "out_out.npy"), e / e.sum(1, keepdims=True), rtol=1e-5)
    c = t.attempt(SOFTMAX, {"x": x}, [], command="emit")
    assert "float e[1][53]" in c.stdout or "float e[53]" in c.stdout, c.stdout


SHIFTED = '''import teml
N = 40


@teml.transform
def f(x: teml.Var[(N,), "float32"], y: teml.Var[(N,), "float32", "output"]):
    t = teml.empty((N,), "float32")
    for i in range(N):
        t[i] = x[i] * 2.0
    for i in range(N):
        y[i] = t[i] + t[N - 1 - i]
'''


def test_loops_whose_intermediate_would_not_shrink_stay_apart(tmp_path):
    x = np.arange(40, dtype=np.float32)
    t = Teml(tmp_path)
    r = t.attempt(SHIFTED, {"x": x}, ["y"], extra=["-v"])
    assert r.returncode == 0, r.stderr
    assert "s.fuse(" not in r.stderr and "s.local(" not in r.stderr, r.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "out_y.npy"), 2 * x + 2 * x[::-1])


FUSE_IN_A_LOOP = '''import teml
N = 16


@teml.transform
def f(x: teml.Var[(N,), "float32"], y: teml.Var[(N,), "float32", "output"]):
    a = teml.zeros((N + 1,), "float32")
    for k in range(3):
        #! label: A
        for i in range(N):
            a[i] = x[i] * k
        #! label: B
        for i in range(N):
            y[i] += a[i + 1]


@teml.schedule(f)
def s(s):
    s.fuse("A", "B")
'''


def test_a_fusion_inside_a_loop_that_reverses_a_dependence_is_refused(tmp_path):
    # fuse checks the two loops alone, the iterators around them as constants
    r = Teml(tmp_path).attempt(FUSE_IN_A_LOOP, {"x": np.ones(16, np.float32)}, ["y"])
    assert r.returncode == 1, r.stderr
    assert ("program.py:19:5: error: fuse would reverse the dependence (k, i) -> (k, i_2 - 1) from the statement at "
            "line 11 to the one at line 14 on 'a'") in r.stderr, r.stderr


PRODUCT_COPIED_OUT = '''import teml
N = 24
K = 20
M = 40


@teml.transform
def f(a: teml.Var[(N, K), "float32"], b: teml.Var[(K, M), "float32"], y: teml.Var[(N, M), "float32", "output"]):
    t = teml.zeros((N, M), "float32")
    #! label: Li
    for i in range(N):
        #! label: Lk
        for k in range(K):
            #! label: Lj
            for j in range(M):
                t[i, j] += a[i, k] * b[k, j]
    #! label: Ci
    for i in range(N):
        #! label: Cj
        for j in range(M):
            y[i, j] = t[i, j]
'''


def test_a_fusion_that_would_sum_down_columns_is_not_planned(tmp_path):
    # Fusing over i keeps t to a row; fusing further over j would need j
    # outside k, and the product would then read b down its columns one
    # element at a time (`y[()] = teml.libop.matmul(a, b)` ran 150x slower).
    rng = np.random.default_rng(5)
    a, b = rng.integers(-4, 4, (24, 20)).astype(np.float32), rng.integers(-4, 4, (20, 40)).astype(np.float32)
    t = Teml(tmp_path)
    r = t.attempt(PRODUCT_COPIED_OUT, {"a": a, "b": b}, ["y"], extra=["-v"])
    assert r.returncode == 0, r.stderr
    assert 's.fuse("Li", "Ci")' in r.stderr, r.stderr
    assert 's.fuse("Lj", "Cj")' not in r.stderr and 's.reorder(["Lj", "Lk"])' not in r.stderr, r.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "out_y.npy"), a @ b)


LAYER = '''import teml
N = 40
K = 256
M = 256


@teml.transform
def f(x: teml.Var[(N, K), "float32"], w: teml.Var[(K, M), "float32"], b: teml.Var[(M,), "float32"]):
    return teml.libop.relu(teml.libop.matmul(x, w) + b)
'''


def layer_inputs():
    rng = np.random.default_rng(6)
    x, w = rng.integers(-3, 4, (40, 256)).astype(np.float32), rng.integers(-3, 4, (256, 256)).astype(np.float32)
    return x, w, rng.integers(-9, 9, 256).astype(np.float32) + 0.5  # no sum lands on relu's corner


def test_a_product_is_not_fused_with_what_reads_it_row_by_row(tmp_path):
    # Fused over i, the product's rows would run one at a time, without the
    # blocks of rows that reuse w (65,536 elements, out of L2) from registers.
    x, w, b = layer_inputs()
    t = Teml(tmp_path)
    r = t.attempt(LAYER, {"x": x, "w": w, "b": b}, ["out"], extra=["-v"])
    assert r.returncode == 0, r.stderr
    assert "s.fuse(" not in r.stderr and "s.unroll_and_jam(" in r.stderr, r.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "out_out.npy"), np.maximum(x @ w + b, 0))


def test_a_gradient_summed_across_rows_is_not_fused_into_them(tmp_path):
    # w.grad[k, j] += y.grad[i, j] * x[i, k] fused over i with the loop that
    # makes y.grad would update all of w.grad once a row, on every thread.
    x, w, b = layer_inputs()
    t = Teml(tmp_path)
    r = t.attempt(LAYER, {"x": x, "w": w, "b": b}, ["w.grad", "b.grad"], command="grad",
                  extra=["-v", "--wrt", "w,b", "--of", "out"])
    assert r.returncode == 0, r.stderr
    assert 's.local("L8.0.grad", "y.grad")' not in r.stderr and "s.fuse(" not in r.stderr, r.stderr
    kept = (x @ w + b > 0).astype(np.float32)
    np.testing.assert_array_equal(np.load(tmp_path / "out_w.grad.npy"), x.T @ kept)
    np.testing.assert_array_equal(np.load(tmp_path / "out_b.grad.npy"), kept.sum(0))
