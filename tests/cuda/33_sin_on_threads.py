"""Ports FreeTensor's test_gpu.py::test_intrinsic: sin of float32 on threadIdx.x (FreeTensor's intrinsic "sinf(%)"; teml.sin here)."""
import teml
@teml.transform
def f(x: teml.Var[(4,), "float32"], y: teml.Var[(4,), "float32", "output"]):
    #! label: L1
    for i in range(4):
        y[i] = teml.sin(x[i])
@teml.schedule(f)
def g(s):
    s.parallelize("L1", "threadIdx.x")
