"""Ports FreeTensor's test_gpu_normalize_buffer_shapes.py::test_multiplex_shared_basic: a gpu/shared row defined inside the loop bound to threadIdx.y, a copy per row (multiplexed); 64 lanes for FreeTensor's 256.

FreeTensor: accepts: t becomes a (4, 256) shared array, one row per threadIdx.y; each lane reads
only what it wrote, so no barrier; runs and checks y.
teml: accepted since issue 46's block-wide barriers: the loop over threadIdx.y has the block's count (every thread runs it once), so a __syncthreads inside its body is reached by every thread (once refused: "which not every thread may run").
Case: the issue's case: a shared tensor defined inside the y loop (multiplex_shared_basic). The
barrier teml asks for is between the first value it gives the teml.empty shared row and the row's
writes; rows are 64 lanes, two warps.
"""
import teml
@teml.transform
def f(x: teml.Var[(4, 64), "int32"], y: teml.Var[(4, 64), "int32", "output"]):
    #! label: L0
    for i in range(4):
        t = teml.empty((64,), "int32", "gpu/shared")
        #! label: L1
        for j in range(64):
            t[j] = x[i, j] * 2
        #! label: L2
        for j in range(64):
            y[i, j] = t[j] + 1
@teml.schedule(f)
def g(s):
    s.parallelize("L0", "threadIdx.y")
    s.parallelize("L1", "threadIdx.x")
    s.parallelize("L2", "threadIdx.x")
