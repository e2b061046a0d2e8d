# fuzz: {"inputs": {"A": {"role": "data"}, "col": {"bound": "N", "role": "index"}, "ptr": {"bound": "E", "role": "csr"}, "val": {"role": "data"}, "w": {"role": "data"}, "x": {"role": "data"}, "z": {"role": "data"}}, "seed": 6829, "uses": ["abs", "and", "arith", "assign+=", "assign-=", "assign=", "csr_loop", "elif", "floordiv", "gather", "if", "int64", "iterator_value", "loop", "minmax", "mod", "or", "scatter", "select"]}
# Found by seed 6829 on path run (first on path shapes, at E = 193 as here), input seed 6829: z[1] 4 instead of 1. y[0] reaches -8.7e18, so y[0] * 2 wraps to a positive value and the interpreter takes 1; GCC, to which signed overflow is undefined, folded y[0] * 2 >= 0 into y[0] >= 0 and took x[0]. Fixed: generated C is always compiled with -fwrapv (runtime/jit.cpp).
import teml
E = 193
N = 2
R = 1

@teml.transform
def f(x: teml.Var[(N,), 'int64'], ptr: teml.Var[(R + 1,), 'int32'], col: teml.Var[(E,), 'int32'], y: teml.Var[(N,), 'int64', 'output'], z: teml.Var[(N,), 'int64', 'inout']):
    z[N - 1] = 1
    for i2 in range(E):
        for k3 in range(ptr[0], ptr[0 + 1]):
            z[col[k3]] += y[1]
            z[col[k3]] += 1
            y[col[i2]] += max(z[col[i2]], 1)
    z[N - 1] = 1 if y[0] * 2 >= 0 else x[0]
