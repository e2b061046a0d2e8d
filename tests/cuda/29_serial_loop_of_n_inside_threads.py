"""Ports FreeTensor's test_gpu.py::test_pass_by_value_0d: a serial loop of n iterations inside the loop bound to threadIdx.x, n a 0-d tensor (FreeTensor's byvalue scalar)."""
import teml
@teml.transform
def f(n: teml.Var[(), "int32"], x: teml.Var[(8, 4), "int32"], y: teml.Var[(8, 4), "int32", "output"]):
    #! label: L1
    for i in range(4):
        #! label: L2
        for j in range(n[()]):
            y[j, i] = x[j, i] + 1
@teml.schedule(f)
def g(s):
    s.parallelize("L1", "threadIdx.x")
