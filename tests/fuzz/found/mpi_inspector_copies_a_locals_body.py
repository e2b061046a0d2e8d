# fuzz: {"inputs": {"idx": {"bound": "N", "role": "index"}, "x": {"role": "data"}}, "of": ["y"], "seed": 9141, "uses": ["abs", "arith", "assign=", "assignmax", "exp", "float64", "gather", "local_scalar", "loop", "minmax", "running_max", "scatter", "select", "sigmoid", "tanh"], "wrt": ["x"]}
# Found by seed 9141 on path mpi (and mpi3; seed 9139 on mpigrad:auto), input seed 9141: internal error "lowering made ill-formed IR: two statements have the id 'S4'". The gather through idx gets an inspector, a copy of the step that marks the rows it reads; copying the local m3's body rebuilt its sequence, which kept the original's id, so two statements had one id. The copy's rebuilt statements now take ids of their own (lowering/distributed/inspector.cpp).
import teml
K = 2
N = 1

@teml.transform
def f(idx: teml.Var[(K,), 'int32'], y: teml.Var[(N,), 'float64', 'output']):
    y[N - 1] = 1.0
    for i1 in range(K):
        m3 = teml.full((), 1.0, 'float64')
        m3[()] = y[idx[i1]]
        m3[()] = y[0]
