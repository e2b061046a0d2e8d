# fuzz: {"inputs": {"A": {"role": "data"}, "x": {"role": "data"}}, "of": ["y", "Y", "s"], "seed": 4, "uses": ["arith", "assign=", "assignmax", "float64", "iterator_value", "local_scalar", "loop", "minmax", "sigmoid", "sqrt"], "wrt": ["x", "A"]}
# Found by seed 4 on path mpi: the exchange of a scalar accumulator passed its value, not its address (C compiler refused).
import teml
M = 8
N = 32

@teml.transform
def f(y: teml.Var[(N,), 'float64', 'output']):
    t1 = teml.empty((), 'float64')
    for i2 in range(M):
        for i3 in range(N):
            t4 = teml.empty((), 'float64')
            t4[()] = min(1.0, 1.0 - y[0])
        t1[()] = max(t1[()], i2)
