# fuzz: {"inputs": {"w": {"role": "data"}, "x": {"role": "data"}}, "of": ["y", "Y"], "seed": 3215, "uses": ["abs", "arith", "assign*=", "assign+=", "assign-=", "div", "exp", "float64", "local_scalar", "loop", "minmax", "select", "sqrt", "tanh"], "wrt": ["x", "w"]}
# Found by seed 3215 on path pygrad, input seed 3215: not a compiler bug but the oracle's. w[0] is -0.0, the kink of abs; the central difference there (0) is one subgradient and teml's derivative (the sign) another. Finite differences now count an element as smooth only where the one-sided slopes agree.
import teml
M = 2
N = 9

@teml.transform
def f(x: teml.Var[(N,), 'float64'], w: teml.Var[(M,), 'float64'], Y: teml.Var[(N, M), 'float64', 'output']):
    Y[0, 0] = abs(w[0])
