# fuzz: {"inputs": {"idx": {"bound": "N", "role": "index"}, "x": {"role": "data"}, "z": {"role": "data"}}, "seed": 4292, "uses": ["abs", "and", "arith", "assign+=", "assign-=", "assign=", "assignmax", "elif", "else", "floordiv", "gather", "if", "int64", "iterator_value", "local_scalar", "loop", "minmax", "or"]}
# Found by seed 4292 on path emulate, input seed 4292: every thread reads z[0] in the branch's condition, thread 0 writes it in the branch, and no barrier came between them (the emulator reported the race); the branch now waits for every thread's read first (lowering/cuda/gpu_barriers).
import teml
K = 16
M = 1
N = 1

@teml.transform
def f(x: teml.Var[(N,), 'int64'], idx: teml.Var[(K,), 'int64'], y: teml.Var[(N,), 'int64', 'output'], z: teml.Var[(N,), 'int64', 'inout']):
    for i1 in range(M):
        if z[N - 1] > 0:
            for i2 in range(K):
                t3 = teml.zeros((), 'int64')
                t3[()] = y[idx[i2]]
            z[N - 1] = 1
