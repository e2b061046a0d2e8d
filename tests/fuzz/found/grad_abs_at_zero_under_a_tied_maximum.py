# fuzz: {"inputs": {"idx": {"bound": "N", "role": "index"}, "x": {"role": "data"}}, "of": ["y", "s"], "seed": 6876, "uses": ["abs", "and", "arith", "assign*=", "assign+=", "assign/=", "assign=", "assignmax", "div", "elif", "else", "exp", "float64", "gather", "if", "iterator_value", "local_scalar", "loop", "minmax", "running_max", "scatter", "select", "sigmoid", "sqrt", "tanh"], "wrt": ["x"]}
# Found by seed 6876 on path grad (and pygrad, torchgrad; every tape setting), input seed 6876: x.grad[24] 0.1697 instead of 0.0 (finite differences). Four elements of x are exactly 0, so 1 / (|x| + 1) ties at 1 for each and the running maximum stays 1 whichever way one of them moves: the program is flat there. teml took abs's derivative at 0 as +1 and passed the maximum's adjoint through it. Fixed: abs's derivative is the sign of x, 0 at 0 (PyTorch's and JAX's choice), autodiff/partials.cpp.
import teml
N = 64

@teml.transform
def f(x: teml.Var[(N,), 'float64'], s: teml.Var[(), 'float64', 'output']):
    for i1 in range(N):
        m3 = teml.full((), 100.0, 'float64')
        m3[()] = 1.0 / (abs(x[i1]) + 1.0)
        s[()] = max(s[()], max(m3[()], s[()]))
