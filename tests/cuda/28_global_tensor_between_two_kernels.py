"""Ports FreeTensor's test_gpu.py::test_global_mem: a gpu/global tensor defined on the host, written by one kernel and read by the next."""
import teml
@teml.transform
def f(x: teml.Var[(4,), "int32"], y: teml.Var[(4,), "int32", "output"]):
    t = teml.empty((4,), "int32", "gpu/global")
    #! label: L1
    for i in range(4):
        t[i] = x[i] * 2
    #! label: L2
    for i in range(4):
        y[i] = t[i] + 1
@teml.schedule(f)
def g(s):
    s.parallelize("L1", "threadIdx.x")
    s.parallelize("L2", "threadIdx.x")
