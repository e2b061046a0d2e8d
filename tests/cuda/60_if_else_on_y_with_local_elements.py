"""Ports FreeTensor's test_gpu_sync.py::test_syncthreads_split_branch_and_vardef_with_else: both arms of an if/else on threadIdx.y (rows of 64 lanes) sum into a gpu/shared pair and define a gpu/local element, then lane 0 reads both.

FreeTensor: accepts: as test_syncthreads_split_branch_with_else, with each arm's gpu/local element
u1/u2 defined around its __syncthreads (checks the lowered AST only). (teml.zeros where FreeTensor's
ft.empty is summed into before any write.)
teml: accepted since issue 46: the branch is split at its barrier, each arm's gpu/local element defined around the pieces (a thread's own, so the arm that does not use it loses nothing).
Case: the issue's case: a block-wide barrier inside the loop bound to threadIdx.y whose extent is
the block's (both arms of an if/else).
"""
import teml
@teml.transform
def f(x: teml.Var[(4, 64), "int32"], y: teml.Var[(4,), "int32", "output"],
      z1: teml.Var[(4,), "int32", "inout"], z2: teml.Var[(4,), "int32", "inout"]):
    #! label: L0
    for i in range(4):
        t = teml.zeros((2,), "int32", "gpu/shared")
        if i < 2:
            #! label: L1
            for j in range(64):
                t[j % 2] += x[i, j]
            u1 = teml.empty((1,), "int32", "gpu/local")
            u1[0] = z1[i] * 2
            y[i] = t[0]
            z1[i] = u1[0] + 1
            z2[i] = u1[0] + 1
        else:
            #! label: L2
            for j in range(64):
                t[j % 2] += x[i, j] * 2
            u2 = teml.empty((1,), "int32", "gpu/local")
            u2[0] = z1[i] * 2
            y[i] = t[0]
            z1[i] = u2[0] + 1
            z2[i] = u2[0] + 1
@teml.schedule(f)
def g(s):
    s.parallelize("L0", "threadIdx.y")
    s.parallelize("L1", "threadIdx.x")
    s.parallelize("L2", "threadIdx.x")
