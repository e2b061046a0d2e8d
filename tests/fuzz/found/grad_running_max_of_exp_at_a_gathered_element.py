# fuzz: {"inputs": {"idx": {"bound": "N", "role": "index"}, "x": {"role": "data"}}, "of": ["y"], "seed": 6729, "uses": ["abs", "and", "arith", "assign*=", "assign+=", "assign-=", "assign=", "div", "elif", "else", "exp", "float64", "gather", "if", "iterator_value", "local_scalar", "loop", "minmax", "running_max", "scatter", "sigmoid", "sqrt", "tanh"], "wrt": ["x"]}
# Found by seed 6729 on path grad (and pygrad, torchgrad; every tape setting), input seed 6729, reduced: x.grad[8] 13.163 instead of 13.129 (finite differences). Seed 6465's kind: a running maximum of exp(...) that the automatic schedule vectorized (libmvec's exp in the forward, the scalar exp in the backward's exact comparison). Fixed by 6465's fix (auto_vectorize.cpp); found by the campaign's older build.
import teml
K = 8
N = 2

@teml.transform
def f(x: teml.Var[(N,), 'float64'], idx: teml.Var[(K,), 'int32'], y: teml.Var[(N,), 'float64', 'output']):
    y[idx[0]] = x[idx[0]]
    y[0] = 1.0
    m3 = teml.full((), -100.0, 'float64')
    for i4 in range(K):
        m3[()] = max(m3[()], teml.exp(y[idx[0]]))
    y[idx[0]] = m3[()]
