# fuzz: {"inputs": {"idx": {"bound": "N", "role": "index"}, "x": {"role": "data"}}, "of": ["y", "s"], "seed": 10232, "uses": ["abs", "and", "arith", "assign+=", "assign-=", "assign/=", "assign=", "div", "elif", "else", "exp", "float64", "gather", "helper", "helper_branches1", "helper_call", "if", "iterator_value", "local_scalar", "loop", "minmax", "running_max", "select", "sqrt", "tanh"], "wrt": ["x"]}
# Found by seed 10232 on path grad (and pygrad, torchgrad, mpigrad; every tape setting), input seed 10232, reduced: x.grad NaN where the differences give a finite gradient. The loop's values of s are dead (s = x[N - 1] overwrites them before anything reads them), so the adjoint of s stayed 0 through the loop's backward pass, which multiplied it by partials of values that had overflowed to inf (0 * inf = NaN). A zero scalar adjoint now contributes zero (autodiff/backward.cpp, ofNonzero).
import teml
K = 12
N = 28

def h0(a, b):
    t = teml.empty((), 'float64')
    t[()] = min(b, a) + b
    return t[()]

@teml.transform
def f(x: teml.Var[(N,), 'float64'], s: teml.Var[(), 'float64', 'output']):
    for i1 in range(N):
        for i2 in range(K):
            s[()] += h0(x[0], s[()] * i2)
        s[()] /= 1.0 if s[()] <= 0.45 else x[i1]
    s[()] = x[N - 1]
