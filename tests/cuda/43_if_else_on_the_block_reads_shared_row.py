"""Ports FreeTensor's test_gpu_sync.py::test_syncthreads_at_outer_branch_2: both arms of an if/else on the block's index read the gpu/shared row its threads wrote."""
import teml
@teml.transform
def f(x: teml.Var[(4, 64), "int32"], y: teml.Var[(4,), "int32", "output"]):
    #! label: L0
    for i in range(4):
        t = teml.empty((64,), "int32", "gpu/shared")
        #! label: L1
        for j in range(64):
            t[j] = x[i, j]
        if i < 2:
            y[i] = t[0] + t[63]
        else:
            y[i] = t[0] * t[63]
@teml.schedule(f)
def g(s):
    s.parallelize("L0", "blockIdx.x")
    s.parallelize("L1", "threadIdx.x")
