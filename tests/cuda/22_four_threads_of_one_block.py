"""Ports FreeTensor's test_gpu.py::test_basic: four iterations on threadIdx.x."""
import teml
@teml.transform
def f(x: teml.Var[(4,), "int32"], y: teml.Var[(4,), "int32", "output"]):
    #! label: L1
    for i in range(4):
        y[i] = x[i] + 1
@teml.schedule(f)
def g(s):
    s.parallelize("L1", "threadIdx.x")
