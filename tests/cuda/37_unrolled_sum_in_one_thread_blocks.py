"""Ports FreeTensor's test_gpu.py::test_unroll_for: a sum over an unrolled loop inside a loop bound to blockIdx.x (one thread per block: plain += in the CUDA, no atomics, as FreeTensor checks)."""
import teml
@teml.transform
def f(x: teml.Var[(4, 64), "int32"], y: teml.Var[(4,), "int32", "output"]):
    #! label: L1
    for i in range(4):
        #! label: L2
        for j in range(64):
            y[i] = y[i] + x[i, j]
@teml.schedule(f)
def g(s):
    s.parallelize("L1", "blockIdx.x")
    s.unroll("L2")
