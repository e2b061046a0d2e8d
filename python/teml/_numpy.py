"""teml's functions as NumPy runs them, so that a free-form function runs
under plain Python too (slowly; handy for debugging)."""
import numpy as np


def _dtype(dtype):
    return np.dtype(dtype)


def zeros(shape, dtype="float64"):
    return np.zeros(shape, _dtype(dtype))


def ones(shape, dtype="float64"):
    return np.ones(shape, _dtype(dtype))


def empty(shape, dtype="float64"):
    return np.zeros(shape, _dtype(dtype))  # teml's empty tensors start at zero too


def full(shape, value, dtype="float64"):
    return np.full(shape, value, _dtype(dtype))


def result_type(*values):
    return np.result_type(*values).name


exp, log, sqrt, tanh, sin, cos, floor, ceil = np.exp, np.log, np.sqrt, np.tanh, np.sin, np.cos, np.floor, np.ceil


def sigmoid(x):
    return 1 / (1 + np.exp(-x))
