# fuzz: {"inputs": {"A": {"role": "data"}, "col": {"bound": "N", "role": "index"}, "idx": {"bound": "N", "role": "index"}, "ptr": {"bound": "E", "role": "csr"}, "val": {"role": "data"}, "w": {"role": "data"}, "x": {"role": "data"}}, "of": ["y", "Y", "s"], "seed": 3037, "uses": ["abs", "and", "arith", "assign+=", "assign-=", "assign=", "div", "exp", "float64", "gather", "helper", "helper_branches3", "helper_call", "iterator_value", "loop", "minmax", "running_max", "scatter", "select", "sigmoid", "sqrt", "tanh"], "wrt": ["x", "A", "w", "val"]}
# Found by seed 3037 on path mpi: the exchange plan stopped with "the elements to move form no box that one rank holds" (rank 0's part of Y, the whole minus a corner, was one piece isl left as no box).
import teml
M = 2
N = 2

@teml.transform
def f(Y: teml.Var[(N, M), 'float64', 'output']):
    for i9 in range(N):
        Y[i9, M - 1] = 1.0
