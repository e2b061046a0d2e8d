# fuzz: {"inputs": {"x": {"role": "data"}}, "of": ["y", "s"], "seed": 6089, "uses": ["arith", "assign+=", "assign=", "assignmax", "exp", "float64", "if", "iterator_value", "loop", "minmax", "select", "sigmoid", "sqrt", "tanh"], "wrt": ["x"]}
# Found by seed 6089 on path grad (and pygrad, torchgrad; every tape setting), input seed 6089, reduced: not a compiler bug but the oracle's. x.grad was not finite where finite differences give 0. s stays 0 (it starts at 0 and is only multiplied), so every partial of s with respect to y is 0; but the adjoint of s is the product of 841 factors 3 * y[i1] (up to about 10 each), about 10^800, which overflows to inf before it meets that 0: inf * 0 = NaN, as PyTorch's autograd gives on the same loops. No weight scale brings 10^800 into float64's range (the retake at 2^-1000 fails too), so the oracle leaves elements not finite where the differences are exactly 0 unjudged and judges the rest. A strong zero (0 * inf = 0) in every backward product would cost a compare and select per partial for a case no float reverse mode computes.
import teml
N = 29

@teml.transform
def f(x: teml.Var[(N,), 'float64'], y: teml.Var[(N,), 'float64', 'output'], s: teml.Var[(), 'float64', 'output']):
    for i1 in range(N):
        y[i1] = 2.0 * x[i1]
        for i3 in range(N):
            s[()] = s[()] * y[i1] * 3.0
