# fuzz: {"inputs": {"x": {"role": "data"}}, "of": ["y"], "seed": 6465, "uses": ["float64", "loop", "local_scalar", "running_max", "sigmoid", "tanh"], "wrt": ["x"]}
# Found by seed 6465 on path grad (and pygrad, torchgrad; every tape setting), input seed 6465, reduced: x.grad[7] 0.0269 instead of 0.0284 (finite differences). The automatic schedule vectorized the running maximum of tanh(y[i3]), so the forward took glibc's vector tanh (libmvec, within 4 ulp); the backward finds the term that won by computing tanh(y[i3]) again in scalar code and comparing it with the taped maximum exactly, and a value one ulp away matched no term: the gradient through the maximum was lost. With --no-auto it was right. Fixed: a max= or min= reduction of vector math stays scalar in the automatic schedule (auto_vectorize.cpp).
import teml
N = 8

@teml.transform
def f(x: teml.Var[(N,), 'float64'], y: teml.Var[(N,), 'float64', 'output']):
    for i1 in range(N):
        m2 = teml.full((), -100.0, 'float64')
        for i3 in range(N):
            m2[()] = max(m2[()], teml.tanh(y[i3]))
        y[i1] = teml.sigmoid(x[i1] * m2[()])
