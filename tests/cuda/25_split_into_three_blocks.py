"""Ports FreeTensor's test_gpu.py::test_split_by_block_and_bind: 100 iterations split into 3 blocks (split nparts=3) of 34 threads, the last block partly idle."""
import teml
@teml.transform
def f(x: teml.Var[(100,), "int32"], y: teml.Var[(100,), "int32", "output"]):
    #! label: L1
    for i in range(100):
        y[i] = x[i] + 1
@teml.schedule(f)
def g(s):
    outer, inner = s.split("L1", nparts=3)
    s.parallelize(outer, "blockIdx.x")
    s.parallelize(inner, "threadIdx.x")
