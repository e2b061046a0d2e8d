"""Ports FreeTensor's test_gpu.py::test_parallel_broadcast: a gpu/shared element the block writes once and all its threads read."""
import teml
@teml.transform
def f(a: teml.Var[(4, 1), "int32"], b: teml.Var[(1, 8), "int32"], c: teml.Var[(4, 8), "int32", "output"]):
    #! label: L0
    for i in range(4):
        t = teml.empty((1,), "int32", "gpu/shared")
        t[0] = a[i, 0]
        #! label: L1
        for k in range(8):
            c[i, k] = c[i, k] + t[0] * b[0, k]
@teml.schedule(f)
def g(s):
    s.parallelize("L0", "blockIdx.x")
    s.parallelize("L1", "threadIdx.x")
