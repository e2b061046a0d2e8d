"""Ports FreeTensor's test_gpu_sync.py::test_syncthreads_no_need_to_split_branch_warp: as test_syncthreads_no_need_to_split_branch with rows of one warp (32 lanes, threadIdx.y) in 3 groups (threadIdx.z): each warp's loop of lim[i, j] steps needs only __syncwarp.

FreeTensor: accepts: rows of one warp (32 lanes, threadIdx.y) in 3 groups (threadIdx.z); each warp's
loop of lim[i, j] steps needs only __syncwarp, which it puts inside the loop (checks the lowered AST
only). (teml.zeros where FreeTensor's ft.empty is summed into before any write.)
teml: accepted since issue 46: in the block-wide loop over threadIdx.z, the loop over threadIdx.y
covers its dimension and the block's rows are warps, so each (i, j) is one warp, which `__syncwarp`
orders inside its loop of lim[i, j] steps.
Case: not one of the issue's listed cases; the rule for a loop over threadIdx.y whose rows are warps
(docs/cuda.md), inside a block-wide loop over threadIdx.z.
"""
import teml
@teml.transform
def f(lim: teml.Var[(3, 4), "int32"], x: teml.Var[(12, 10, 32), "int32"], y: teml.Var[(12, 10), "int32", "output"]):
    #! label: L0
    for i in range(3):
        #! label: L1
        for j in range(4):
            if i % 2 == 0:
                #! label: L2
                for k in range(lim[i, j]):
                    t = teml.zeros((2,), "int32", "gpu/shared")
                    #! label: L3
                    for p in range(32):
                        t[p % 2] += x[i * 4 + j, k, p]
                    y[i * 4 + j, k] = t[0]
@teml.schedule(f)
def g(s):
    s.parallelize("L0", "threadIdx.z")
    s.parallelize("L1", "threadIdx.y")
    s.parallelize("L3", "threadIdx.x")
