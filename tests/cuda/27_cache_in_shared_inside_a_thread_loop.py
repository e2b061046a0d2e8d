"""Ports FreeTensor's test_gpu.py::test_shmem: each thread's x[i] cached in gpu/shared (cache inside the loop bound to threadIdx.x)."""
import teml
@teml.transform
def f(x: teml.Var[(4,), "int32"], y: teml.Var[(4,), "int32", "output"]):
    #! label: L1
    for i in range(4):
        y[i] = x[i] + 1
@teml.schedule(f)
def g(s):
    s.cache("L1", "x", "gpu/shared")
    s.parallelize("L1", "threadIdx.x")
