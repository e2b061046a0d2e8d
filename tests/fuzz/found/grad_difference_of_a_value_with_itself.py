# fuzz: {"inputs": {"x": {"role": "data"}}, "of": ["y"], "seed": 5070, "uses": ["abs", "arith", "assign*=", "assign+=", "assign/=", "assign=", "div", "float64", "loop", "minmax", "sqrt"], "wrt": ["x"]}
# Found by seed 5070 on path grad (and pygrad, torchgrad; every tape setting), input seed 5070, reduced: x.grad 0.0964 where the differences give 0.2014 (here up to 1e57 where they give 0). y[i4] - y[i4] is flat, but its partials +g and -g were added to the adjoint of y[i4] one after the other; with y near 1e23 a large g rounded the adjoint's low bits away, and later factors as large made that error the whole gradient. The partials of x - x are now left out (autodiff/partials.cpp); PyTorch's autograd gives 0 on this program.
import teml
N = 65

@teml.transform
def f(x: teml.Var[(N,), 'float64'], y: teml.Var[(N,), 'float64', 'output']):
    for i4 in range(N):
        y[i4] = (y[i4] - 2.0 - x[i4] * y[N - 1]) / (3.0 * abs(x[i4]) + 1.0)
        for i5 in range(N):
            a = max(y[i4], y[i5])
            y[i5] += a + teml.sqrt(a * a + 1.0)
            y[i5] /= (abs(((y[i4] + y[i4]) * (y[i4] - y[i4] + 1.0))) + 1.0)
            y[i4] *= 0.95
