# fuzz: {"inputs": {"A": {"role": "data"}, "col": {"bound": "N", "role": "index"}, "ptr": {"bound": "E", "role": "csr"}, "val": {"role": "data"}, "w": {"role": "data"}, "x": {"role": "data"}, "z": {"role": "data"}}, "seed": 8102, "uses": ["abs", "and", "arith", "assign*=", "assign+=", "assign=", "elif", "else", "gather", "if", "int64", "iterator_value", "loop", "minmax", "mod", "running_max", "scatter"]}
# Found by seed 8102 on path mpi (and mpi3), input seed 8102, reduced: 'z' element (1,) 0 instead of 1. The statement after the loop stores through an index loaded from data; it runs on one rank, which the plan then took to hold all of 'z' up to date (isl bounds the store by the whole tensor), and that rank's z[1] was the input's, never received from the rank whose block wrote it. A store through data, or in a loop whose bounds data decide, may leave the elements it names as they were, like a store in a branch: the rank now first receives their values (analysis/element_sets' perhapsWritten).
import teml
E = 1
N = 3

@teml.transform
def f(col: teml.Var[(E,), 'int32'], z: teml.Var[(N,), 'int64', 'inout']):
    for i1 in range(N):
        z[i1] = 1
    z[col[0]] = 1
