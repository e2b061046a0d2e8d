# fuzz: {"inputs": {"A": {"role": "data"}, "col": {"bound": "N", "role": "index"}, "idx": {"bound": "N", "role": "index"}, "ptr": {"bound": "E", "role": "csr"}, "val": {"role": "data"}, "w": {"role": "data"}, "x": {"role": "data"}, "z": {"role": "data"}}, "seed": 11739, "uses": ["abs", "and", "arith", "assign+=", "assign-=", "assign=", "assignmax", "csr_loop", "gather", "if", "int32", "iterator_value", "local_row", "loop", "minmax", "mod", "scatter", "select"]}
# Found by seed 11739 on path mpi (and mpi3), reduced: under mpirun every rank failed an index check, 'index 241 out of range [0, 1) for dimension 0 of x', on an index it had never read. No loop is distributed, so every rank runs the CSR loop whole, but the plan counted `col` as read only where the branch holds (k3 < 3): the condition's own reads were placed in the instances where it is true, and a rank read 3 of col's 19 elements from the file. A condition's reads (and a loop's bounds') now count in every instance around them (analysis/isl_model.hpp, controlDepth; analysis/element_sets.cpp).
import teml
E = 19
M = 1
N = 1
R = 1

@teml.transform
def f(x: teml.Var[(N,), 'int32'], ptr: teml.Var[(R + 1,), 'int32'], col: teml.Var[(E,), 'int32'], Y: teml.Var[(N, M), 'int32', 'output']):
    for k3 in range(ptr[0], ptr[0 + 1]):
        if x[col[k3]] > 0 and k3 < 3:
            Y[col[k3], 0] += 1
