"""Ports FreeTensor's test_gpu_sync.py::test_syncthreads: a block's gpu/shared row written by its threads and read reversed (a barrier between); 64 threads for FreeTensor's 256."""
import teml
@teml.transform
def f(x: teml.Var[(4, 64), "int32"], y: teml.Var[(4, 64), "int32", "output"]):
    #! label: L0
    for i in range(4):
        t = teml.empty((64,), "int32", "gpu/shared")
        #! label: L1
        for j in range(64):
            t[j] = x[i, j] * 2
        #! label: L2
        for j in range(64):
            y[i, j] = t[63 - j] + 1
@teml.schedule(f)
def g(s):
    s.parallelize("L0", "blockIdx.x")
    s.parallelize("L1", "threadIdx.x")
    s.parallelize("L2", "threadIdx.x")
