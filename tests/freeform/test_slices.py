"""A slice's start may be any integer expression, checked at run time like
an index; its length must be known from sizes and constants."""
import numpy as np


def test_a_window_whose_start_is_the_iterator(teml):
    program = '''import teml


@teml.transform
def f(x: teml.Var[(n + K,), "float64"], y: teml.Var[(n, K), "float64", "output"]):
    for j in range(n):
        y[j] = x[j:j + K] * 2
'''
    x = np.random.default_rng(0).standard_normal(13)
    want = np.stack([x[j:j + 4] * 2 for j in range(9)])
    np.testing.assert_allclose(teml.run(program, {"x": x}, ["y"], sizes={"n": 9, "K": 4})["y"], want)


def test_a_start_read_from_data_is_checked_at_run_time(teml):
    program = '''import teml


@teml.transform
def f(x: teml.Var[(12,), "float64"], k: teml.Var[(), "int32"], y: teml.Var[(4,), "float64", "output"]):
    y[:] = x[k[()]:k[()] + 4]
'''
    x = np.arange(12.0)
    got = teml.run(program, {"x": x, "k": np.array(8, np.int32)}, ["y"])["y"]
    np.testing.assert_allclose(got, x[8:12])
    result = teml.attempt(program, {"x": x, "k": np.array(9, np.int32)}, ["y"])
    assert result.returncode == 1
    assert "out of range [0, 12) for dimension 0 of 'x'" in result.stderr


def test_a_slice_whose_length_is_not_known_is_refused(teml):
    program = '''import teml


@teml.transform
def f(x: teml.Var[(12,), "float64"], k: teml.Var[(), "int32"], y: teml.Var[(4,), "float64", "output"]):
    y[:] = x[k[()]:4]
'''
    result = teml.attempt(program, {"x": np.zeros(12), "k": np.array(0, np.int32)}, ["y"])
    assert result.returncode == 1
    assert "program.py:6:14: error: the length of a slice must be known at compile time" in result.stderr


def test_a_stop_before_a_run_time_start_is_an_empty_slice(teml):
    program = '''import teml


@teml.transform
def f(x: teml.Var[(12,), "float64"], k: teml.Var[(), "int32"], y: teml.Var[(), "float64", "output"]):
    y[()] = teml.libop.sum(x[k[()] + 4:k[()]], axis=0) + 1
'''
    out = teml.run(program, {"x": np.arange(12.0), "k": np.array(3, np.int32)}, ["y"])
    assert out["y"] == 1
