"""A thread's own array (gpu/local)."""
import teml
@teml.transform
def f(x: teml.Var[(100, 4), "float64"], y: teml.Var[(100,), "float64", "output"]):
    #! label: L
    for i in range(100):
        t = teml.zeros((4,), "float64")
        for k in range(4):
            t[k] = x[i, k] * x[i, (k + 1) % 4]
        for k in range(4):
            y[i] += t[k]
@teml.schedule(f)
def g(s):
    o, i = s.split("L", 32)
    s.parallelize(o, "blockIdx.x")
    s.parallelize(i, "threadIdx.x")
