# fuzz: {"inputs": {"x": {"role": "data"}}, "of": ["y", "s"], "seed": 6089, "uses": ["arith", "assign+=", "assign=", "assignmax", "exp", "float64", "if", "iterator_value", "loop", "minmax", "select", "sigmoid", "sqrt", "tanh"], "wrt": ["x"]}
# Open (not run by the tests). Found by seed 6089 on path grad (and pygrad, torchgrad; every tape setting), input seed 6089, reduced: x.grad not finite where finite differences give 0. s stays 0 (it starts at 0 and is only multiplied), so every partial of s with respect to y is 0; but the adjoint of s is the product of 841 factors 3 * y[i1] (up to about 10 each), which overflows to inf before it meets that 0: inf * 0 = NaN. PyTorch's autograd on the same loops gives NaN too. The oracle's retake at weights 2^-1000 times as large (harness_adjoints_overflow_at_the_drawn_weights.py) cannot bring 10^800 into range. To decide: the oracle calls it its own (a gradient no reverse mode computes in floats), or the backward pass takes a partial that is exactly 0 as a strong zero (0 * inf = 0, as some AD systems do). Reproduce: /usr/bin/python3 tests/fuzz/runner.py THIS_FILE --paths grad --input-seed 6089
import teml
N = 29

@teml.transform
def f(x: teml.Var[(N,), 'float64'], y: teml.Var[(N,), 'float64', 'output'], s: teml.Var[(), 'float64', 'output']):
    for i1 in range(N):
        y[i1] = 2.0 * x[i1]
        for i3 in range(N):
            s[()] = s[()] * y[i1] * 3.0
