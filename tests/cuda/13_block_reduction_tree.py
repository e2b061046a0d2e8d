"""A sum and a running maximum over a block's threads: trees in shared memory, not atomics on one element."""
import teml
@teml.transform
def f(x: teml.Var[(8, 100), "float64"], s: teml.Var[(8,), "float64", "output"], m: teml.Var[(8,), "float64", "output"]):
    #! label: Li
    for i in range(8):
        m[i] = -1e30
        #! label: Lj
        for j in range(100):
            s[i] += x[i, j] * x[i, j]
            m[i] = max(m[i], x[i, j])
@teml.schedule(f)
def g(s):
    s.parallelize("Li", "blockIdx.x")
    s.parallelize("Lj", "threadIdx.x")
