"""teml.libop, written in the free-form language, computes what NumPy does."""
import numpy as np
import pytest

rng = np.random.default_rng(0)


def program(signature, body):
    return f"""import teml
from teml import libop

@teml.transform
def f({signature}):
    {body}
"""


def var(name, shape, dtype="float64", access="input"):
    return f'{name}: teml.Var[{tuple(shape)}, "{dtype}", "{access}"]'


@pytest.mark.parametrize("op,fn", [("add", np.add), ("sub", np.subtract), ("mul", np.multiply), ("div", np.divide)])
@pytest.mark.parametrize("sa,sb", [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 1, 4), (3, 1)), ((5,), ())])
def test_elementwise_operators_broadcast_as_numpy_does(teml, op, fn, sa, sb):
    a, b = rng.standard_normal(sa), rng.standard_normal(sb) + 3
    want = fn(a, b)
    src = program(", ".join([var("a", sa), var("b", sb), var("y", want.shape, access="output")]), f"y[()] = libop.{op}(a, b)")
    got = teml.run(src, {"a": a, "b": b}, ["y"])["y"]
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("op,fn", [("neg", np.negative), ("abs", np.abs), ("exp", np.exp), ("tanh", np.tanh),
                                   ("sigmoid", lambda x: 1 / (1 + np.exp(-x))), ("relu", lambda x: np.maximum(x, 0))])
def test_unary_operators(teml, op, fn):
    a = rng.standard_normal((4, 5)).astype(np.float32)
    src = program(", ".join([var("a", a.shape, "float32"), var("y", a.shape, "float32", "output")]), f"y[()] = libop.{op}(a)")
    np.testing.assert_allclose(teml.run(src, {"a": a}, ["y"])["y"], fn(a), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("op", ["sum", "max", "min", "mean"])
@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reductions_over_an_axis(teml, op, axis, keepdims):
    a = rng.standard_normal((3, 4, 5))
    want = getattr(np, op)(a, axis=axis, keepdims=keepdims)
    src = program(", ".join([var("a", a.shape), var("y", want.shape, access="output")]),
                  f"y[()] = libop.{op}(a, axis={axis}, keepdims={keepdims})")
    np.testing.assert_allclose(teml.run(src, {"a": a}, ["y"])["y"], want, rtol=1e-12)


def test_softmax(teml):
    a = rng.standard_normal((3, 7)).astype(np.float32)
    e = np.exp(a - a.max(axis=-1, keepdims=True))
    src = program(", ".join([var("a", a.shape, "float32"), var("y", a.shape, "float32", "output")]), "y[()] = libop.softmax(a)")
    np.testing.assert_allclose(teml.run(src, {"a": a}, ["y"])["y"], e / e.sum(-1, keepdims=True), rtol=1e-5)


@pytest.mark.parametrize("sa,sb", [((3, 4), (4, 5)), ((4,), (4,)), ((4,), (4, 5)), ((3, 4), (4,)),
                                   ((2, 3, 4), (4, 5)), ((2, 3, 4), (2, 4, 5)), ((3, 4), (2, 4, 5))])
def test_matmul(teml, sa, sb):
    a, b = rng.standard_normal(sa), rng.standard_normal(sb)
    want = np.matmul(a, b)
    src = program(", ".join([var("a", sa), var("b", sb), var("y", want.shape, access="output")]), "y[()] = libop.matmul(a, b)")
    np.testing.assert_allclose(teml.run(src, {"a": a, "b": b}, ["y"])["y"], want, rtol=1e-12)


def test_layout_operators(teml):
    a = rng.standard_normal((3, 4))
    idx = np.array([[2, 0], [1, 1]], np.int32)
    cases = {
        "t1": ("libop.transpose(a)", a.T),
        "t2": ("libop.transpose(libop.reshape(a, (2, 3, 2)), (1, 2, 0))", a.reshape(2, 3, 2).transpose(1, 2, 0)),
        "r": ("libop.reshape(a, (6, 2))", a.reshape(6, 2)),
        "fl": ("libop.flatten(a)", a.ravel()),
        "c0": ("libop.concat([a, a, a], axis=0)", np.concatenate([a, a, a], 0)),
        "c1": ("libop.concat([a, a], axis=-1)", np.concatenate([a, a], -1)),
        "g0": ("libop.gather(a, idx)", a[idx]),
        "g1": ("libop.gather(a, idx, axis=1)", np.take(a, idx, axis=1)),
    }
    sig = [var("a", a.shape), var("idx", idx.shape, "int32")] + [var(k, v[1].shape, access="output") for k, v in cases.items()]
    body = "\n    ".join(f"{k}[()] = {v[0]}" for k, v in cases.items())
    got = teml.run(program(", ".join(sig), body), {"a": a, "idx": idx}, list(cases))
    for k, v in cases.items():
        np.testing.assert_array_equal(got[k], v[1], err_msg=k)


def test_creation_operators(teml):
    src = program(", ".join([var("y", (2, 3), access="output"), var("z", (4,), "int32", "output")]),
                  "y[()] = libop.ones((2, 3)) + libop.zeros((3,))\n    libop.fill(z, 7)")
    got = teml.run(src, {}, ["y", "z"])
    np.testing.assert_array_equal(got["y"], np.ones((2, 3)))
    np.testing.assert_array_equal(got["z"], np.full(4, 7, np.int32))
