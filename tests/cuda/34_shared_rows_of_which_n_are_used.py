"""Ports FreeTensor's test_gpu.py::test_dynamic_shared_memory_size: each thread's row in gpu/shared, of which the loops use the first n (n read at run time, at most 64; FreeTensor sizes the row n, teml's shapes are fixed when it compiles)."""
import teml
@teml.transform
def f(n: teml.Var[(), "int32"], x: teml.Var[(4, 64), "int32"], y: teml.Var[(4, 64), "int32", "output"]):
    #! label: L0
    for i in range(4):
        assert n[()] <= 64
        t = teml.empty((64,), "int32", "gpu/shared")
        #! label: L1
        for j in range(n[()]):
            t[j] = x[i, j] * 2
        #! label: L2
        for j in range(n[()]):
            y[i, j] = t[j] + 1
        #! label: L3
        for j in range(n[()], 64):
            y[i, j] = 0
@teml.schedule(f)
def g(s):
    s.parallelize("L0", "threadIdx.x")
