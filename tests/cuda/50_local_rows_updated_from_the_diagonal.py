"""Ports FreeTensor's test_gpu_normalize_buffer_shapes.py::test_simplex_local_2: a block's 10 x 10 tensor made gpu/local, each thread's row updated from its own diagonal element."""
import teml
@teml.transform
def f(x: teml.Var[(10, 10, 10), "int32"], y: teml.Var[(10, 10, 10), "int32", "output"]):
    #! label: Lb
    for b in range(10):
        t = teml.empty((10, 10), "int32", "gpu/global")
        #! label: L0
        for i in range(10):
            for j in range(10):
                t[i, j] = x[b, i, j] * 2
            for j in range(10):
                t[i, j] += t[i, i]
        #! label: L1
        for i in range(10):
            for j in range(10):
                y[b, i, j] = t[i, j] + 1
@teml.schedule(f)
def g(s):
    s.parallelize("Lb", "blockIdx.x")
    s.parallelize("L0", "threadIdx.x")
    s.parallelize("L1", "threadIdx.x")
    s.set_mem_type("t", "gpu/local")
