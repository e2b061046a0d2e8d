"""Ports FreeTensor's test_gpu.py::test_return_value_and_runtime_allocation: a gpu/global tensor the program makes and returns."""
import teml
@teml.transform
def f(x: teml.Var[(4, 4), "int32"]):
    y = teml.empty((4, 4), "int32", "gpu/global")
    #! label: L1
    for i in range(4):
        #! label: L2
        for j in range(4):
            y[i, j] = x[i, j] * 2 + 1
    return y
@teml.schedule(f)
def g(s):
    s.parallelize("L1", "blockIdx.x")
    s.parallelize("L2", "threadIdx.x")
