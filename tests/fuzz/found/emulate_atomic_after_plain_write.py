# fuzz: {"inputs": {"A": {"role": "data"}, "col": {"bound": "N", "role": "index"}, "idx": {"bound": "N", "role": "index"}, "ptr": {"bound": "E", "role": "csr"}, "val": {"role": "data"}, "x": {"role": "data"}}, "seed": 5, "uses": ["abs", "arith", "assign+=", "assign-=", "assign=", "gather", "int32", "local_scalar", "loop", "minmax", "scatter", "select"]}
# Found by seed 5 on path emulate: the emulator restored and compared another kernel's tensors between orders (s = 21, not 7).
import teml
E = 1
K = 1
M = 1
N = 1
R = 1

@teml.transform
def f(y: teml.Var[(N,), 'int32', 'output'], Y: teml.Var[(N, M), 'int32', 'output'], s: teml.Var[(), 'int32', 'output']):
    y[N - 1] = 2
    for i1 in range(E):
        s[()] -= 1
