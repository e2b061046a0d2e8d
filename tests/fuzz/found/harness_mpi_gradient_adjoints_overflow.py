# fuzz: {"inputs": {"idx": {"bound": "N", "role": "index"}, "x": {"role": "data"}}, "of": ["y", "s"], "seed": 8140, "uses": ["abs", "arith", "assign*=", "assign+=", "assign-=", "assign/=", "assign=", "div", "elif", "exp", "float64", "gather", "if", "iterator_value", "local_scalar", "loop", "minmax", "scatter", "select", "sigmoid", "sqrt", "tanh"], "wrt": ["x"]}
# Found by seed 8140 on path mpigrad:auto, input seed 8140, reduced: 'x.grad' not finite where differences are smooth. s stays 0 while s.grad is multiplied by 1 + 1/|x| 1,836 times: the adjoints overflow and the chain rule meets inf * 0, on every gradient path alike. The runner takes such gradients again at smaller weights, but ran the mpirun path again through the Python worker, which has no such path, and judged its old files: gradients by `teml grad`, under mpirun too, now run again by the command line (runner.CLI_GRADIENTS).
import teml
K = 6
N = 51

@teml.transform
def f(x: teml.Var[(N,), 'float64'], s: teml.Var[(), 'float64', 'output']):
    for i6 in range(N):
        for i7 in range(K):
            for i8 in range(K):
                s[()] += s[()] / abs(x[i6])
