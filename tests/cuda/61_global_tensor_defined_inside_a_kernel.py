"""Ports FreeTensor's test_gpu.py::test_global_mem_in_kernel: a 0-d gpu/global tensor defined inside loops bound to threadIdx.x.

FreeTensor: accepts: t becomes global memory with a copy per thread (allocated around the kernel);
runs and checks y1, y2, z1, z2.
teml: accepted since issue 46: the host allocates the tensor around the kernel, a copy per block and thread of the loops around its definition, zeroed where it is defined (once refused: "defined inside a kernel").
Case: the issue's case: a gpu/global tensor defined inside a kernel (test_global_mem_in_kernel).
"""
import teml
@teml.transform
def f(x: teml.Var[(8,), "int32"], y1: teml.Var[(8,), "int32", "output"], y2: teml.Var[(8,), "int32", "output"],
      z1: teml.Var[(4,), "int32", "output"], z2: teml.Var[(4,), "int32", "output"]):
    #! label: L1
    for i in range(8):
        t = teml.empty((), "int32", "gpu/global")
        t[()] = x[i] * 2
        y1[i] = t[()] + 1
        y2[i] = t[()] + 2
    #! label: L2
    for i in range(4):
        t = teml.empty((), "int32", "gpu/global")
        t[()] = x[i] * 3
        z1[i] = t[()] + 1
        z2[i] = t[()] + 2
@teml.schedule(f)
def g(s):
    s.parallelize("L1", "threadIdx.x")
    s.parallelize("L2", "threadIdx.x")
