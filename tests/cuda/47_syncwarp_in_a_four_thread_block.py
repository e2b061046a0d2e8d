"""Ports FreeTensor's test_gpu_sync.py::test_syncwarp: blocks of 4 threads (one warp) share a gpu/shared row, read reversed after a __syncwarp."""
import teml
@teml.transform
def f(x: teml.Var[(4, 4), "int32"], y: teml.Var[(4, 4), "int32", "output"]):
    #! label: L0
    for i in range(4):
        t = teml.empty((4,), "int32", "gpu/shared")
        #! label: L1
        for j in range(4):
            t[j] = x[i, j] * 2
        #! label: L2
        for j in range(4):
            y[i, j] = t[3 - j] + 1
@teml.schedule(f)
def g(s):
    s.parallelize("L0", "blockIdx.x")
    s.parallelize("L1", "threadIdx.x")
    s.parallelize("L2", "threadIdx.x")
