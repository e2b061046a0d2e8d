"""teml.libop under plain Python: the same operators with NumPy. Inside a
@teml.transform function, teml compiles its own libop (written in the
free-form language) instead."""
import numpy as np

add, sub, mul, div, neg, abs = np.add, np.subtract, np.multiply, np.divide, np.negative, np.abs
exp, log, sqrt, tanh = np.exp, np.log, np.sqrt, np.tanh
matmul, concatenate, transpose, reshape = np.matmul, np.concatenate, np.transpose, np.reshape


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def relu(x):
    return np.maximum(x, 0)


def zeros(shape, dtype="float64"):
    return np.zeros(shape, dtype)


def ones(shape, dtype="float64"):
    return np.ones(shape, dtype)


def fill(y, value):
    y[()] = value


def sum(x, axis=-1, keepdims=False):
    return np.sum(x, axis=axis, keepdims=keepdims)


def max(x, axis=-1, keepdims=False):
    return np.max(x, axis=axis, keepdims=keepdims)


def min(x, axis=-1, keepdims=False):
    return np.min(x, axis=axis, keepdims=keepdims)


def mean(x, axis=-1, keepdims=False):
    return np.mean(x, axis=axis, keepdims=keepdims)


def softmax(x, axis=-1):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def concat(tensors, axis=0):
    return np.concatenate(tensors, axis=axis)


def gather(x, index, axis=0):
    return np.take(x, index, axis=axis)


def flatten(x):
    return np.reshape(x, (-1,))
