# fuzz: {"inputs": {"w": {"role": "data"}, "x": {"role": "data"}}, "of": ["y"], "seed": 5576, "uses": ["abs", "arith", "assign=", "assignmax", "float64", "helper", "helper_branches3", "helper_call", "iterator_value", "loop", "minmax", "or", "running_max", "select", "sqrt", "tanh"], "wrt": ["x", "w"]}
# Found by seed 5576 on path grad (and pygrad, torchgrad; every tape setting), input seed 5576, reduced: x.grad[64] 6.998 where finite differences and PyTorch give 6.959. Along the loops min's operands x[i2] - y[i2] and x[N - 1] + 0.5 were equal 330 times, and the gradient went whole to the first operand on a tie. It is now split in half between them, as PyTorch and JAX split it (autodiff/partials.cpp).
import teml
M = 4
N = 65

@teml.transform
def f(x: teml.Var[(N,), 'float64'], w: teml.Var[(M,), 'float64'], y: teml.Var[(N,), 'float64', 'output']):
    for i1 in range(N):
        y[i1] = max(y[i1], x[i1])
        for i2 in range(N):
            y[i2] = min(x[i2] - y[i2], x[N - 1] + 0.5) - w[M - 1]
