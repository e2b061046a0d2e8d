# fuzz: {"inputs": {}, "seed": 3789, "uses": ["abs", "arith", "int32", "local_scalar", "loop", "minmax"]}
# Found by seed 3789 on path run: int32 `abs(v) * 2` past 2**31 kept its 64-bit value in the generated C (teml_abs is over long), so max(1, ...) differed from the interpreter, which wraps.
import teml
N = 21

@teml.transform
def f(y: teml.Var[(N,), 'int32', 'output']):
    for i1 in range(N):
        m2 = teml.full((), 1000, 'int32')
        y[i1] = m2[()]
    for i5 in range(N):
        for i6 in range(N):
            y[i5] = max(1, abs(y[1]) * 2)
            y[i5] = y[i5] - (-y[1]) // 1
