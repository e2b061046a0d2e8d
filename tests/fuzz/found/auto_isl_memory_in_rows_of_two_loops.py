# fuzz: {"inputs": {"col": {"bound": "N", "role": "index"}, "ptr": {"bound": "E", "role": "csr"}, "val": {"role": "data"}, "w": {"role": "data"}, "x": {"role": "data"}}, "of": ["y", "Y"], "seed": 4665, "uses": ["abs", "arith", "assign+=", "assign=", "assignmax", "csr_loop", "div", "elif", "else", "exp", "float64", "gather", "helper", "helper_branches2", "helper_call", "if", "iterator_value", "local_scalar", "loop", "minmax", "or", "scatter", "select", "sigmoid", "sqrt"], "wrt": ["x", "w", "val"]}
# Found by seed 4665 on path auto (and mpi, mpi3), input seed 4665: asked whether 'Y' is apart across loop i1, isl passed 10 GB in a minute. The instances' times carried the index checks of the CSR rows (ptr[i1] <= ptr[i1 + 1], ...), each a disjunction over data alone, which isl multiplied out; they are decided apart now, as in the access relations (analysis/isl_model relationMap). Seed 4791: 50 s, now 0.1 s.
import teml
E = 40
M = 8
N = 7
R = 3

def h0(a, b):
    t = teml.empty((), 'float64')
    return t[()]

@teml.transform
def f(x: teml.Var[(N,), 'float64'], w: teml.Var[(M,), 'float64'], ptr: teml.Var[(R + 1,), 'int32'], col: teml.Var[(E,), 'int32'], val: teml.Var[(E,), 'float64'], y: teml.Var[(N,), 'float64', 'output'], Y: teml.Var[(N, M), 'float64', 'output']):
    for i1 in range(R):
        t2 = teml.zeros((), 'float64')
        for i3 in range(R):
            for k4 in range(ptr[i1], ptr[i1 + 1]):
                Y[col[k4], 0] = min(Y[col[k4], 0], Y[0, 0] * (val[k4] + float(i1) - float(i3)))
                y[col[k4]] = h0(y[col[k4]], x[col[k4]])
            for k5 in range(ptr[i3], ptr[i3 + 1]):
                if max(x[N - 1], val[k5]) >= 0.1:
                    t2[()] += teml.exp(min(min(min(0.5, w[0]), Y[0, M - 1] - 0.25), 3.0))
                    t2[()] += abs(float(k5) * float(i1))
                else:
                    t2[()] = max(t2[()], teml.sqrt(y[col[k5]] * y[col[k5]] * (y[col[k5]] * y[col[k5]]) + 1.0) + t2[()])
                if Y[N - 1, M - 1] - float(k5) <= 1.2 or teml.sigmoid(t2[()]) < 0.45:
                    y[col[k5]] += abs(val[k5] - x[0]) - teml.exp(min(float(i3) if Y[col[k5], 0] <= -0.3 else x[0], 3.0))
                elif y[col[k5]] - w[0] <= -0.05:
                    y[col[k5]] = abs(float(i3))
