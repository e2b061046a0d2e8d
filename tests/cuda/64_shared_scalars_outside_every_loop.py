"""Ports FreeTensor's test_gpu.py::test_shmem_scalar: 0-d gpu/shared tensors defined outside every loop, each written by one thread of a first loop on threadIdx.x and read by the threads of a second; the scope of the scalars is one kernel of one block, the loops ordered by a barrier (FreeTensor checks y = [4, 6, 3, 7] for x = [1, 2, 3, 4])."""
import teml
@teml.transform
def f(x: teml.Var[(4,), "int32"]):
    t1 = teml.empty((), "int32", "gpu/shared")
    t2 = teml.empty((), "int32", "gpu/shared")
    t3 = teml.empty((), "int32", "gpu/shared")
    t4 = teml.empty((), "int32", "gpu/shared")
    #! label: L1
    for i in range(4):
        if i == 0:
            t1[()] = x[i]
        elif i == 1:
            t2[()] = x[i]
        elif i == 2:
            t3[()] = x[i]
        else:
            t4[()] = x[i]
    y = teml.empty((4,), "int32", "gpu/global")
    #! label: L2
    for i in range(4):
        if i == 0:
            y[i] = t1[()] + t3[()]
        elif i == 1:
            y[i] = t2[()] + t4[()]
        elif i == 2:
            y[i] = t1[()] + t2[()]
        else:
            y[i] = t3[()] + t4[()]
    return y
@teml.schedule(f)
def g(s):
    s.parallelize("L1", "threadIdx.x")
    s.parallelize("L2", "threadIdx.x")
