"""Teml.empty in gpu/shared, read by other threads than those that wrote it."""
import teml
@teml.transform
def f(x: teml.Var[(16, 64), "float32"], y: teml.Var[(16, 64), "float32", "output"]):
    #! label: Li
    for i in range(16):
        t = teml.empty((64,), "float32", "gpu/shared")
        #! label: La
        for a in range(64):
            t[a] = x[i, a] * 3.0
        #! label: Lb
        for a in range(64):
            y[i, a] = t[63 - a] + t[a]
@teml.schedule(f)
def g(s):
    s.parallelize("Li", "blockIdx.x")
    s.parallelize("La", "threadIdx.x")
    s.parallelize("Lb", "threadIdx.x")
