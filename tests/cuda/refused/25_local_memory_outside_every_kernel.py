"""Ports FreeTensor's test_gpu.py::test_error_invalid_mtype_out_of_kernel: gpu/local memory outside every kernel.

EXPECTED REFUSAL.

FreeTensor: refuses it (InvalidProgram at codegen): its parameters are gpu/local, outside every
kernel. teml's parameters carry no memory type, so the port defines a gpu/local tensor between two
kernels.
teml: 25_local_memory_outside_every_kernel.py:14:5: error: 't' is gpu/local, but it is defined outside every kernel (local memory is a thread's)
Case: EXPECTED REFUSAL: FreeTensor refuses it too.
"""
import teml
@teml.transform
def f(x: teml.Var[(4,), "int32"], y: teml.Var[(4,), "int32", "output"]):
    t = teml.empty((4,), "int32", "gpu/local")
    #! label: L0
    for i in range(4):
        t[i] = x[i]
    #! label: L1
    for i in range(4):
        y[i] = t[i] + 1
@teml.schedule(f)
def g(s):
    s.parallelize("L0", "threadIdx.x")
    s.parallelize("L1", "threadIdx.x")
