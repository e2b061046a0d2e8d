"""Ports FreeTensor's test_gpu.py::test_scalar: 0-d gpu/global tensors written by one block each, read by the blocks of a second kernel."""
import teml
@teml.transform
def f(x: teml.Var[(4,), "int32"]):
    y1 = teml.empty((), "int32", "gpu/global")
    y2 = teml.empty((), "int32", "gpu/global")
    y3 = teml.empty((), "int32", "gpu/global")
    y4 = teml.empty((), "int32", "gpu/global")
    #! label: L1
    for i in range(4):
        if i == 0:
            y1[()] = x[i]
        elif i == 1:
            y2[()] = x[i]
        elif i == 2:
            y3[()] = x[i]
        else:
            y4[()] = x[i]
    z = teml.empty((4,), "int32", "gpu/global")
    #! label: L2
    for i in range(4):
        if i == 0:
            z[i] = y1[()] + y3[()]
        elif i == 1:
            z[i] = y2[()] + y4[()]
        elif i == 2:
            z[i] = y1[()] + y2[()]
        else:
            z[i] = y3[()] + y4[()]
    return z
@teml.schedule(f)
def g(s):
    s.parallelize("L1", "blockIdx.x")
    s.parallelize("L2", "blockIdx.x")
