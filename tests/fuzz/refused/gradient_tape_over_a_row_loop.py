# fuzz: {"inputs": {"col": {"bound": "N", "role": "index"}, "ptr": {"bound": "E", "role": "csr"}, "val": {"role": "data"}, "x": {"role": "data"}}, "of": ["y", "Y", "s"], "seed": 1053, "uses": ["abs", "and", "arith", "assign+=", "assign=", "csr_loop", "div", "elif", "exp", "float64", "gather", "helper", "helper_branches1", "helper_call", "if", "iterator_value", "local_scalar", "loop", "minmax", "or", "running_max", "scatter", "select", "sigmoid", "sqrt", "tanh"], "wrt": ["x", "val"]}
# Found by seed 1053 on every gradient path: refused (isl gave up), then at no line. isl decides it since the index checks of CSR rows are left out of its relations; the gradient is refused at the statement of 't3' (24), which reads values overwritten afterwards and would need a tape over the row loop 'k2' (no constant trip count): at no line either, before.
import teml
E = 40
M = 3
N = 17
R = 9

def h0(a, b):
    t = teml.empty((), 'float64')
    if teml.sigmoid(a) > 0.45:
        t[()] = min((a - 0.25), 3.0)
    else:
        t[()] = (a / (abs((b * 0.5)) + 1.0))
    return t[()]

@teml.transform
def f(x: teml.Var[(N,), 'float64'], ptr: teml.Var[(R + 1,), 'int32'], col: teml.Var[(E,), 'int32'], val: teml.Var[(E,), 'float64'], y: teml.Var[(N,), 'float64', 'output'], Y: teml.Var[(N, M), 'float64', 'output'], s: teml.Var[(), 'float64', 'output']):
    #! label: Li1
    for i1 in range(R):
        #! label: Lk2
        for k2 in range(ptr[i1], ptr[i1 + 1]):
            t3 = teml.empty((), 'float64')
            t3[()] = s[()]
            t3[()] += ((float(i1) + teml.tanh(s[()])) / (abs((teml.exp(min(y[col[k2]], 3.0)) if teml.sqrt(Y[col[k2], 0] * Y[col[k2], 0] + 1.0) < 0.1 else min(y[N - 1], 0.25))) + 1.0))
    #! label: Li4
    for i4 in range(R):
        m5 = teml.full((), -100.0, 'float64')
        #! label: Li6
        for i6 in range(N):
            m5[()] = max(m5[()], (y[i6] - y[i6]))
        s[()] += teml.sqrt((val[E - 1] + Y[N - 1, M - 1]) * (val[E - 1] + Y[N - 1, M - 1]) + 1.0)
        #! label: Lk7
        for k7 in range(ptr[i4], ptr[i4 + 1]):
            t8 = teml.empty((), 'float64')
            t8[()] = teml.sigmoid(teml.exp(min(val[k7], 3.0)))
            t8[()] = -0.75
            m5[()] += h0(teml.sigmoid(Y[col[k7], 0]), (val[k7] * val[0]))
        if teml.tanh(x[N - 1]) <= 1.2 and teml.sqrt(Y[0, M - 1] * Y[0, M - 1] + 1.0) < -0.3:
            #! label: Lk9
            for k9 in range(ptr[i4], ptr[i4 + 1]):
                y[col[k9]] = m5[()]
                t10 = teml.empty((), 'float64')
                t10[()] = max((y[col[k9]] + val[k9]), -0.75)
                t10[()] += teml.sqrt(Y[col[k9], 0] * Y[col[k9], 0] + 1.0)
        elif (val[E - 1] * Y[N - 1, M - 1]) <= -0.05:
            s[()] = teml.exp(min(((s[()] * val[E - 1]) * abs(val[0])), 3.0))
