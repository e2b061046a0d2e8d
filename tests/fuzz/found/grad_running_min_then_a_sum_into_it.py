# fuzz: {"inputs": {"col": {"bound": "N", "role": "index"}, "idx": {"bound": "N", "role": "index"}, "ptr": {"bound": "E", "role": "csr"}, "val": {"role": "data"}, "w": {"role": "data"}, "x": {"role": "data"}}, "of": ["y", "s"], "seed": 5781, "uses": ["and", "arith", "assign+=", "assign/=", "elif", "exp", "float64", "gather", "if", "iterator_value", "local_scalar", "loop", "minmax", "running_max", "scatter", "select", "sqrt", "tanh"], "wrt": ["x", "w", "val"]}
# Found by seed 5781 on path grad (and pygrad, torchgrad; every tape setting), input seed 5781, reduced: x.grad[idx[0]] 0 where finite differences give 1.548. The backward pass undid 'm3 += 1.0' in place (m3 - 1.0), which gives m3's old value back only to rounding, and min='s backward compared x[idx[0]] with it exactly: no tie, no gradient. A float update is no longer undone in place when some comparison reads its tensor (autodiff/versions.cpp); its old value is kept instead.
import teml
K = 1
N = 2

@teml.transform
def f(x: teml.Var[(N,), 'float64'], idx: teml.Var[(K,), 'int64'], y: teml.Var[(N,), 'float64', 'output']):
    m3 = teml.full((), 100.0, 'float64')
    m3[()] = min(m3[()], x[idx[0]])
    m3[()] += 1.0
    y[idx[0]] = m3[()]
