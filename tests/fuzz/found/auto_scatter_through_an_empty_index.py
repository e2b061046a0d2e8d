# fuzz: {"inputs": {"col": {"bound": "N", "role": "index"}, "ptr": {"bound": "E", "role": "csr"}, "val": {"role": "data"}, "w": {"role": "data"}, "x": {"role": "data"}}, "of": ["y", "s"], "seed": 4182, "uses": ["abs", "and", "arith", "assign+=", "assign=", "csr_loop", "div", "else", "exp", "float64", "gather", "if", "iterator_value", "local_scalar", "loop", "minmax", "scatter", "sigmoid", "sqrt"], "wrt": ["x", "w", "val"]}
# Found by seed 4182 on path auto: a loop over a CSR row vectorized where its scatter's index tensor has no elements (proven apart by isl when marked); the copy of the nest that a range check keeps without index checks hid why, and lowering's second look stopped with an internal error.
import teml
E = 0
M = 1
N = 1
R = 1

@teml.transform
def f(w: teml.Var[(M,), 'float64'], ptr: teml.Var[(R + 1,), 'int32'], col: teml.Var[(E,), 'int32'], y: teml.Var[(N,), 'float64', 'output'], s: teml.Var[(), 'float64', 'output']):
    for i2 in range(R):
        for k3 in range(ptr[i2], ptr[i2 + 1]):
            if w[M - 1] < 1.2:
                y[col[k3]] = 1.0
                s[()] += 1.5
