# fuzz: {"inputs": {"col": {"bound": "N", "role": "index"}, "idx": {"bound": "N", "role": "index"}, "ptr": {"bound": "E", "role": "csr"}, "val": {"role": "data"}, "w": {"role": "data"}, "x": {"role": "data"}}, "of": ["y", "s"], "seed": 5781, "uses": ["and", "arith", "assign+=", "assign/=", "elif", "exp", "float64", "gather", "if", "iterator_value", "local_scalar", "loop", "minmax", "running_max", "scatter", "select", "sqrt", "tanh"], "wrt": ["x", "w", "val"]}
# Open (not run by the tests). Found by seed 5781 on path grad (and pygrad, torchgrad; every tape setting), input seed 5781, reduced: x.grad[idx[0]] 0 where finite differences give 1.548, the weight of y[idx[0]] (the full program: 0 instead of -3.04). Already wrong at the session's first build. A guess to check first: running_reductions makes 'm3 = min(m3, x[i])' a min= reduction, whose backward gives the gradient to the term equal to m3's value; 'm3 += 1.0' changes m3 after it. Reproduce: /usr/bin/python3 tests/fuzz/runner.py THIS_FILE --paths grad --input-seed 5781
import teml
K = 1
N = 2

@teml.transform
def f(x: teml.Var[(N,), 'float64'], idx: teml.Var[(K,), 'int64'], y: teml.Var[(N,), 'float64', 'output']):
    m3 = teml.full((), 100.0, 'float64')
    m3[()] = min(m3[()], x[idx[0]])
    m3[()] += 1.0
    y[idx[0]] = m3[()]
