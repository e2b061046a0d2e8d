# fuzz: {"inputs": {"col": {"bound": "N", "role": "index"}, "ptr": {"bound": "E", "role": "csr"}, "val": {"role": "data"}, "x": {"role": "data"}}, "of": ["y", "s"], "seed": 3495, "uses": ["abs", "and", "arith", "assign*=", "assign+=", "assign/=", "assign=", "assignmax", "div", "elif", "else", "exp", "float64", "gather", "helper", "helper_branches1", "helper_call", "if", "iterator_value", "loop", "minmax", "or", "scatter", "select", "sigmoid", "sqrt", "tanh"], "wrt": ["x", "val"]}
# Found by seed 3495 on path pygrad, input seed 3495: not a compiler bug but the oracle's. val[16] is 0.0, where s = val * min(0, val) has a continuous first derivative (0, teml's answer) but a jump in its second, so the central difference is off by about the step; the comparison now allows the differences' own error, estimated from two steps.
import teml
E = 17
N = 16
R = 9

@teml.transform
def f(x: teml.Var[(N,), 'float64'], ptr: teml.Var[(R + 1,), 'int32'], col: teml.Var[(E,), 'int64'], val: teml.Var[(E,), 'float64'], y: teml.Var[(N,), 'float64', 'output'], s: teml.Var[(), 'float64', 'output']):
    for i1 in range(E):
        s[()] = val[i1] * min(y[0], val[i1])
