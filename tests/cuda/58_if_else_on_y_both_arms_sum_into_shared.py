"""Ports FreeTensor's test_gpu_sync.py::test_syncthreads_split_branch_with_else: both arms of an if/else on threadIdx.y (rows of 64 lanes) sum into a gpu/shared pair (atomics) that lane 0 then reads; 64 lanes for FreeTensor's 256.

FreeTensor: accepts: it splits the if/else into two ifs on i < 2 and i >= 2, each around a
__syncthreads that every thread reaches (checks the lowered AST only). (teml.zeros where
FreeTensor's ft.empty is summed into before any write.)
teml: accepted since issue 46: the branch, in a loop over threadIdx.y that every thread runs once, is split at its barriers as FreeTensor splits it (each piece tests the condition again; it reads nothing the branch writes).
Case: the issue's case: a block-wide barrier inside the loop bound to threadIdx.y whose extent is
the block's (here in both arms of an if/else on the row).
"""
import teml
@teml.transform
def f(x: teml.Var[(4, 64), "int32"], y: teml.Var[(4,), "int32", "output"], z: teml.Var[(4,), "int32", "inout"]):
    #! label: L0
    for i in range(4):
        t = teml.zeros((2,), "int32", "gpu/shared")
        if i < 2:
            #! label: L1
            for j in range(64):
                t[j % 2] += x[i, j]
            z[i] = z[i] + 1
            y[i] = t[0]
        else:
            #! label: L2
            for j in range(64):
                t[j % 2] += x[i, j] * 2
            z[i] = z[i] + 1
            y[i] = t[0]
@teml.schedule(f)
def g(s):
    s.parallelize("L0", "threadIdx.y")
    s.parallelize("L1", "threadIdx.x")
    s.parallelize("L2", "threadIdx.x")
