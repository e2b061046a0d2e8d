"""Ports FreeTensor's test_gpu.py::test_parallel_different_length: two loops of 4 and 8 iterations on threadIdx.x in one block, the second inside a serial loop, sharing a gpu/shared row."""
import teml
@teml.transform
def f(a: teml.Var[(4, 4), "int32"], b: teml.Var[(4, 8), "int32"], c: teml.Var[(4, 8), "int32", "output"]):
    #! label: L0
    for i in range(4):
        t = teml.empty((4,), "int32", "gpu/shared")
        #! label: L1
        for j in range(4):
            t[j] = a[i, j]
        #! label: L2
        for j in range(4):
            #! label: L3
            for k in range(8):
                c[i, k] = c[i, k] + t[j] * b[j, k]
@teml.schedule(f)
def g(s):
    s.parallelize("L0", "blockIdx.x")
    s.parallelize("L1", "threadIdx.x")
    s.parallelize("L3", "threadIdx.x")
