"""Ports FreeTensor's test_gpu.py::test_dynamic_2d_array: an n x n nest (n read at run time), the outer loop split by 4 and its inner part moved out and bound to threadIdx.x."""
import teml
@teml.transform
def f(n: teml.Var[(), "int32"], x: teml.Var[(8, 8), "int32"], y: teml.Var[(8, 8), "int32", "output"]):
    #! label: L1
    for i in range(n[()]):
        #! label: L2
        for j in range(n[()]):
            y[i, j] = x[i, j] + 1
@teml.schedule(f)
def g(s):
    outer, inner = s.split("L1", 4)
    s.reorder([inner, outer])
    s.parallelize(inner, "threadIdx.x")
