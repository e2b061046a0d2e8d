"""Ports FreeTensor's test_gpu.py::test_access_gpu_from_cpu_for_debugging: a program with no GPU schedule on the CUDA target (its loop runs in a kernel of one thread)."""
import teml
@teml.transform
def f(x: teml.Var[(4,), "int32"], y: teml.Var[(4,), "int32", "output"]):
    #! label: L1
    for i in range(4):
        y[i] = x[i] + 1
