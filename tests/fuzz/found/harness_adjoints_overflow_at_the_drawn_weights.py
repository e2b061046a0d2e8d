# fuzz: {"inputs": {"A": {"role": "data"}, "x": {"role": "data"}}, "of": ["y", "Y", "s"], "seed": 4434, "uses": ["abs", "and", "arith", "assign+=", "assign=", "div", "elif", "else", "float64", "helper", "helper_branches1", "helper_call", "if", "iterator_value", "local_scalar", "loop", "minmax", "or", "running_max", "select", "sigmoid", "sqrt", "tanh"], "wrt": ["x", "A"]}
# Found by seed 4434 on path grad, input seed 4434: not a compiler bug but the oracle's. s stays 0 (s = t1 * s * i7 from 0), so the gradient is 0, but the adjoint of s is the product of 124 factors t1 * i7 and overflows to inf before it meets the 0 it multiplies: NaN, as PyTorch's autograd gives too. The oracle now takes a gradient that is not finite again with weights 2^-300 ... 2^-1000 as large and compares it scaled back.
import teml
M = 4
N = 31

@teml.transform
def f(x: teml.Var[(N,), 'float64'], s: teml.Var[(), 'float64', 'output']):
    t1 = teml.zeros((), 'float64')
    for i7 in range(N):
        for i8 in range(M):
            s[()] = t1[()] * s[()] * i7
            t1[()] += x[i7] * x[i7]
