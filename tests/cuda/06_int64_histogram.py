"""A histogram of int64 counts: atomics at indices data choose."""
import teml
@teml.transform
def f(k: teml.Var[(500,), "int32"], h: teml.Var[(16,), "int64", "output"]):
    #! label: L
    for i in range(500):
        h[k[i] % 16] += i % 3 + 1
@teml.schedule(f)
def g(s):
    o, i = s.split("L", 64)
    s.parallelize(o, "blockIdx.x")
    s.parallelize(i, "threadIdx.x")
