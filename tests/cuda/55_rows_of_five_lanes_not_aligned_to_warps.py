"""Ports FreeTensor's test_gpu_sync.py::test_use_syncthreads_for_non_aligned_warps: rows of 5 lanes (threadIdx.x) on threadIdx.y, not aligned to warps, each with its own gpu/shared copy written by the row and read by its lanes; 2 x 2 x 8 for FreeTensor's 64 x 64 x 64.

FreeTensor: accepts: t becomes (64, 5) shared (one row per threadIdx.y), lane 0 of each row fills
it, and since rows of 5 lanes straddle warps it uses __syncthreads, not __syncwarp (checks the
lowered AST only). 2 x 2 x 8 for FreeTensor's 64 x 64 x 64.
teml: accepted since issue 46's block-wide barriers: the loop over threadIdx.y has the block's count (every thread runs it once), so a __syncthreads inside its body is reached by every thread (once refused: "which not every thread may run").
Case: the issue's case: warps not aligned to y iterations.
"""
import teml
@teml.transform
def f(u: teml.Var[(2, 2, 8, 5), "float64"], e: teml.Var[(2, 2, 8, 5), "float64", "output"]):
    #! label: L0
    for i in range(2):
        #! label: L1
        for j in range(2):
            #! label: L2
            for k in range(8):
                t = teml.empty((5,), "float64", "gpu/shared")
                t[0] = u[i, j, k, 0]
                t[1] = u[i, j, k, 1]
                t[2] = u[i, j, k, 2]
                t[3] = u[i, j, k, 3]
                t[4] = u[i, j, k, 4]
                #! label: L3
                for i1 in range(5):
                    e[i, j, k, i1] = t[i1]
@teml.schedule(f)
def g(s):
    s.parallelize("L0", "blockIdx.y")
    s.parallelize("L1", "blockIdx.x")
    s.parallelize("L2", "threadIdx.y")
    s.parallelize("L3", "threadIdx.x")
