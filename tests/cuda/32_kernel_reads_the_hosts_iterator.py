"""Ports FreeTensor's test_gpu.py::test_use_cpu_iters: a kernel inside a loop of the host that reads the host's iterator."""
import teml
@teml.transform
def f(y: teml.Var[(4, 200), "int32", "output"]):
    #! label: Li
    for i in range(4):
        #! label: Lj
        for j in range(200):
            y[i, j] = i + j
@teml.schedule(f)
def g(s):
    s.parallelize("Lj", "threadIdx.x")
