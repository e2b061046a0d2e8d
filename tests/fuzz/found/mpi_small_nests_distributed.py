# fuzz: {"inputs": {"A": {"role": "data"}, "col": {"bound": "N", "role": "index"}, "ptr": {"bound": "E", "role": "csr"}, "val": {"role": "data"}, "w": {"role": "data"}, "x": {"role": "data"}}, "seed": 3368, "uses": ["arith", "div", "exp", "float32", "helper", "helper_branches1", "local_scalar", "loop", "minmax", "or", "sigmoid", "tanh"]}
# Found by seed 3368 on path mpi: with small nests kept off threads, the automatic distribution split a serial loop holding a scoped tensor and the run crashed in free (segmentation fault); small nests keep their threads under several ranks.
import teml
E = 0
M = 9
N = 8
R = 9

def h0(a, b):
    t = teml.zeros((), 'float32')
    if b + 3.0 > -0.05:
        t[()] = teml.sigmoid(min(b, a))
    else:
        t[()] = a / (abs(-0.75) + 1.0) * teml.sigmoid(a)
    return t[()]

@teml.transform
def f(x: teml.Var[(N,), 'float32'], A: teml.Var[(N, M), 'float32'], w: teml.Var[(M,), 'float32'], ptr: teml.Var[(R + 1,), 'int32'], col: teml.Var[(E,), 'int32'], val: teml.Var[(E,), 'float32'], y: teml.Var[(N,), 'float32', 'output'], Y: teml.Var[(N, M), 'float32', 'output'], s: teml.Var[(), 'float32', 'output']):
    for i1 in range(M):
        t2 = teml.zeros((), 'float32')
        t2[()] = teml.tanh(1.0)
    for c0 in range(N):
        y[c0] = s[()] + x[c0]
    for c0 in range(N):
        for c1 in range(M):
            Y[c0, c1] = A[0, M - 1]
