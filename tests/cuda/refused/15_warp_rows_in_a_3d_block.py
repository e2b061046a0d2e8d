"""Ports FreeTensor's test_gpu_sync.py::test_syncthreads_no_need_to_split_branch_warp: as test_syncthreads_no_need_to_split_branch with rows of one warp (32 lanes, threadIdx.y) in 3 groups (threadIdx.z): each warp's loop of lim[i, j] steps needs only __syncwarp.

FreeTensor: accepts: rows of one warp (32 lanes, threadIdx.y) in 3 groups (threadIdx.z); each warp's
loop of lim[i, j] steps needs only __syncwarp, which it puts inside the loop (checks the lowered AST
only). (teml.zeros where FreeTensor's ft.empty is summed into before any write.)
teml: 15_warp_rows_in_a_3d_block.py:24:21: error: this statement and the one at line 22 need a
barrier between them (threads touch each other's elements), and they are inside loop 'j', bound to
threadIdx.y, which not every thread may run; bind them to threads of the same loops
Case: not one of the issue's listed cases; next to the rule for a loop over threadIdx.y whose rows
are warps (docs/cuda.md), which teml applies where blockDim.z is 1: here threadIdx.z is 3.
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
