# fuzz: {"inputs": {"idx": {"bound": "N", "role": "index"}, "w": {"role": "data"}, "x": {"role": "data"}}, "of": ["y", "Y", "s"], "seed": 5907, "uses": ["abs", "arith", "assign+=", "assign=", "else", "float64", "gather", "helper", "helper_branches1", "helper_call", "if", "iterator_value", "loop", "minmax", "running_max", "scatter", "select", "sqrt", "tanh"], "wrt": ["x", "w"]}
# Found by seed 5907 on path mpi (and mpi3), input seed 5907, reduced: 'Y' element (2, 0) 0.0 instead of 3.0. The second loop's only store into Y is in a branch its data never take; the plan counted it as written by the rank whose block runs it, so that rank's stale Y[2] (never received from the first loop's rank) was written out. A rank now first receives the values of what it writes inside a branch (the branch may leave them): analysis/element_sets' perhapsWritten, lowering/distributed/exchanges.cpp.
import teml
K = 9
M = 1
N = 7

def h0(a, b):
    t = ()
    return 1.0

@teml.transform
def f(x: teml.Var[(N,), 'float64'], w: teml.Var[(M,), 'float64'], idx: teml.Var[(K,), 'int32'], y: teml.Var[(N,), 'float64', 'output'], Y: teml.Var[(N, M), 'float64', 'output'], s: teml.Var[(), 'float64', 'output']):
    for i1 in range(N):
        m2 = teml.full((), 100.0, 'float64')
        m2[()] = max(1.0, x[0] - 0)
        Y[i1, M - 1] = i1 * 1.0 + 1.0
        m4 = teml.full((), 100.0, 'float64')
        for i5 in range(K):
            m4[()] = max(1.0, min(max(1.0, w[M - 1]), 1.0))
        m4[()] = min(1.0, x[i1])
    for i8 in range(N):
        if s[()] < 0.1:
            pass
        else:
            Y[i8, M - 1] = (Y[N - 1, M - 1] * 1.0 if max(x[N - 1], s[()]) < 0.1 else 1.0 + x[idx[0]]) * (1.0 * y[N])
