"""The gradient of a product with respect to both of its operands sums two
products in one nest, each over a loop the other keeps; the automatic
schedule cuts such a nest into one nest per product (`fission` at every
level, docs/auto-schedule.md, "fission contractions"), each then blocked as
a product of its own. Sums into small tensors (under 16,384 elements) stay
together. Either way the gradients are NumPy's."""
import numpy as np

from conftest import Teml

PRODUCT = '''import teml
N = {n}
K = {k}
M = {m}


@teml.transform
def f(x: teml.Var[(N, K), "float32"], w: teml.Var[(K, M), "float32"]):
    return teml.libop.matmul(x, w)
'''


def gradients(tmp_path, n, k, m):
    rng = np.random.default_rng(7)
    x, w = rng.integers(-3, 4, (n, k)).astype(np.float32), rng.integers(-3, 4, (k, m)).astype(np.float32)
    t = Teml(tmp_path)
    r = t.attempt(PRODUCT.format(n=n, k=k, m=m), {"x": x, "w": w}, ["x.grad", "w.grad"], command="grad",
                  extra=["-v", "--wrt", "x,w", "--of", "out"])
    assert r.returncode == 0, r.stderr
    ones = np.ones((n, m), np.float32)
    np.testing.assert_array_equal(np.load(tmp_path / "out_x.grad.npy"), ones @ w.T)
    np.testing.assert_array_equal(np.load(tmp_path / "out_w.grad.npy"), x.T @ ones)
    return r.stderr


def test_the_two_products_of_a_products_gradient_run_apart(tmp_path):
    steps = gradients(tmp_path, 300, 256, 288)  # x.grad 76,800 and w.grad 73,728 elements
    assert steps.count("s.fission(") == 3, steps  # the three loops of the nest, innermost first
    assert "s.unroll_and_jam(" in steps, steps


def test_sums_into_small_tensors_stay_together(tmp_path):
    steps = gradients(tmp_path, 30, 20, 24)
    assert "s.fission(" not in steps, steps


def test_sums_into_tensors_of_16384_elements_run_apart(tmp_path):
    steps = gradients(tmp_path, 128, 128, 128)  # x.grad and w.grad 16,384 elements each: attention's q.grad, k.grad
    assert steps.count("s.fission(") == 3, steps
