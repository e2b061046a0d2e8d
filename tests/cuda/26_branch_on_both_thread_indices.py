"""Ports FreeTensor's test_gpu.py::test_not_remove_necessary_range_guard: a branch on both thread indices (i % 4 * 32 + j < 100) that must stay in the kernel."""
import teml
@teml.transform
def f(x: teml.Var[(5, 32), "int32"], y: teml.Var[(5, 32), "int32", "output"]):
    #! label: L1
    for i in range(5):
        #! label: L2
        for j in range(32):
            if i % 4 * 32 + j < 100:
                y[i, j] = x[i, j] + 1
@teml.schedule(f)
def g(s):
    s.parallelize("L1", "threadIdx.y")
    s.parallelize("L2", "threadIdx.x")
