"""A statement of the block in thread 0, then threads reading and updating what it wrote (barriers)."""
import teml
@teml.transform
def f(x: teml.Var[(8, 32), "float64"], y: teml.Var[(8, 32), "float64", "output"], s: teml.Var[(8,), "float64", "output"]):
    #! label: Li
    for i in range(8):
        s[i] = 1.0
        #! label: Lj
        for j in range(32):
            y[i, j] = x[i, j] + s[i]
        #! label: Lk
        for j in range(32):
            s[i] += x[i, j]
@teml.schedule(f)
def g(s):
    s.parallelize("Li", "blockIdx.x")
    s.parallelize("Lj", "threadIdx.x")
    s.parallelize("Lk", "threadIdx.x")
