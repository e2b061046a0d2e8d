"""Ports FreeTensor's test_gpu_sync.py::test_no_sync_between_atomic_reductions: two atomic sums at indices data choose, one after the other, in 4 x 64 threads (no barrier between them; FreeTensor checks its CUDA has no __syncthreads, and teml's has none)."""
import teml
@teml.transform
def f(x: teml.Var[(4, 64), "int32"], idx1: teml.Var[(4, 64), "int32"], idx2: teml.Var[(4, 64), "int32"],
      y: teml.Var[(100,), "int32", "output"]):
    #! label: L0
    for i in range(4):
        #! label: L1
        for j in range(64):
            y[idx1[i, j]] += x[i, j]
            y[idx2[i, j]] += x[i, j]
@teml.schedule(f)
def g(s):
    s.parallelize("L0", "threadIdx.y")
    s.parallelize("L1", "threadIdx.x")
