# fuzz: {"inputs": {"x": {"role": "data"}}, "of": ["y", "Y", "s"], "seed": 3295, "uses": ["abs", "and", "arith", "assign*=", "assign=", "exp", "float64", "helper", "helper_branches3", "helper_call", "iterator_value", "loop", "minmax"], "wrt": ["x"]}
# Found by seed 3295 on path pygrad, input seed 3295: not a compiler bug but the oracle's. s doubles N times (about 1e10) and does not depend on x; the finite differences of the summed loss lost x's effect to rounding. Outputs are now subtracted before they are summed.
import teml
M = 1
N = 24

@teml.transform
def f(x: teml.Var[(N,), 'float64'], y: teml.Var[(N,), 'float64', 'output'], Y: teml.Var[(N, M), 'float64', 'output'], s: teml.Var[(), 'float64', 'output']):
    Y[N - 1, M - 1] = x[0]
    for c0 in range(N):
        s[()] += max(c0, s[()])
