# fuzz: {"inputs": {"w": {"role": "data"}, "x": {"role": "data"}}, "seed": 14798, "uses": ["abs", "and", "arith", "assign+=", "assign-=", "assign=", "else", "floordiv", "if", "int32", "iterator_value", "loop", "minmax", "mod", "running_max", "select"]}
# Found by seed 14798 on path shapes (at N = 264, then 520), input seed 14798: the call never returned. Python's test of which inputs to copy to a 64-byte boundary (analysis/reuse) counted the program's loads iteration by iteration wherever a branch's condition named an iterator, though the data decides it: at N = 264 the call took 24 s, at 520 more than three minutes. Fixed: a branch on data counts half of each arm and does not make the loops around it count one by one; loops whose work varies are counted one by one up to a budget (analysis/executions.cpp).
import teml
M = 4
N = 9

@teml.transform
def f(x: teml.Var[(N,), 'int32'], w: teml.Var[(M,), 'int32'], y: teml.Var[(N,), 'int32', 'output']):
    for i1 in range(N):
        for i6 in range(N):
            for i7 in range(N):
                if (y[i6] // 3) >= 1 and min(x[i7], x[i1]) < 1:
                    y[i7] = ((5 % 5) + (abs(y[i7]) // 3))
                else:
                    y[i6] += (((y[N - 1] * -1) + (x[i1] if (y[i1] + y[i1]) > 3 else x[N - 1])) % 5)
                    y[i6] = (min((2 + i7), w[0]) - (w[0] - -3))
