"""Ports FreeTensor's test_gpu_sync.py::test_syncthreads_split_branch_and_vardef: a gpu/local element the block computes, around statements that read the gpu/shared row its threads wrote."""
import teml
@teml.transform
def f(x: teml.Var[(4, 64), "int32"], y: teml.Var[(4,), "int32", "output"],
      z1: teml.Var[(4,), "int32", "inout"], z2: teml.Var[(4,), "int32", "inout"]):
    #! label: L0
    for i in range(4):
        t = teml.empty((64,), "int32", "gpu/shared")
        #! label: L1
        for j in range(64):
            t[j] = x[i, j]
        u = teml.empty((1,), "int32", "gpu/local")
        u[0] = z1[i] * 2
        y[i] = t[0] + t[63]
        z1[i] = u[0] + 1
        z2[i] = u[0] + 1
@teml.schedule(f)
def g(s):
    s.parallelize("L0", "blockIdx.x")
    s.parallelize("L1", "threadIdx.x")
