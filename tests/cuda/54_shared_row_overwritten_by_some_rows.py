"""Ports FreeTensor's test_gpu_normalize_buffer_shapes.py::test_multiplex_shared_not_loop_invariant: a gpu/shared row defined inside the loop bound to threadIdx.y, filled alike by every row, then overwritten by rows i < 2 only.

FreeTensor: accepts: t becomes (4, 256), one row per threadIdx.y (rows i < 2 write other values),
each lane reading what it wrote (checks the lowered AST only).
teml: accepted since issue 46's block-wide barriers: the loop over threadIdx.y has the block's count (every thread runs it once), so a __syncthreads inside its body is reached by every thread (once refused: "which not every thread may run").
Case: the issue's case: a shared tensor defined inside the y loop.
"""
import teml
@teml.transform
def f(x: teml.Var[(64,), "int32"], y: teml.Var[(4, 64), "int32", "output"]):
    #! label: L0
    for i in range(4):
        t = teml.empty((64,), "int32", "gpu/shared")
        #! label: L1
        for j in range(64):
            t[j] = 0
            if i < 2:
                t[j] = x[j] * 2
        #! label: L2
        for j in range(64):
            y[i, j] = t[j] + 1
@teml.schedule(f)
def g(s):
    s.parallelize("L0", "threadIdx.y")
    s.parallelize("L1", "threadIdx.x")
    s.parallelize("L2", "threadIdx.x")
