# fuzz: {"inputs": {"w": {"role": "data"}, "x": {"role": "data"}}, "of": ["y"], "seed": 3604, "uses": ["abs", "and", "arith", "assign*=", "assign+=", "assign=", "div", "float64", "helper", "helper_branches2", "helper_call", "iterator_value", "local_scalar", "loop", "minmax", "sigmoid", "sqrt"], "wrt": ["x", "w"]}
# Found by seed 3604 on path pygrad, input seed 3604: not a compiler bug but the oracle's. t3 doubles N * M times, so y is about 1e19 and a change of 1e-6 in w is below its rounding; finite differences there measure nothing. An element counts as smooth only where the rounding of the loss's terms over the step is small against the slope.
import teml
M = 3
N = 8

@teml.transform
def f(w: teml.Var[(M,), 'float64'], y: teml.Var[(N,), 'float64', 'output']):
    t3 = teml.empty((), 'float64')
    t3[()] = 1.0
    for i4 in range(N):
        for i5 in range(M):
            t3[()] += t3[()]
            y[i4] = t3[()] + w[i5]
