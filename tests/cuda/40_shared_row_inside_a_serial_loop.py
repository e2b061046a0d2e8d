"""Ports FreeTensor's test_gpu_sync.py::test_syncthreads_in_loop: a gpu/shared row defined inside a serial loop of the block, written and read reversed in each step."""
import teml
@teml.transform
def f(x: teml.Var[(4, 64), "int32"], y: teml.Var[(4, 5, 64), "int32", "output"]):
    #! label: L0
    for i in range(4):
        for p in range(5):
            t = teml.empty((64,), "int32", "gpu/shared")
            #! label: L1
            for j in range(64):
                t[j] = x[i, j] * p
            #! label: L2
            for j in range(64):
                y[i, p, j] = t[63 - j] + 1
@teml.schedule(f)
def g(s):
    s.parallelize("L0", "blockIdx.x")
    s.parallelize("L1", "threadIdx.x")
    s.parallelize("L2", "threadIdx.x")
