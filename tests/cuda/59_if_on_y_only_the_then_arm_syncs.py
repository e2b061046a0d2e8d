"""Ports FreeTensor's test_gpu_sync.py::test_syncthreads_split_branch_but_not_else: the then-arm of an if on threadIdx.y (rows of 64 lanes) sums into a gpu/shared pair that lane 0 then reads; the else-arm needs no barrier.

FreeTensor: accepts: the then-arm's statements split around a __syncthreads outside the branch; the
else-arm stays whole (checks the lowered AST only). (teml.zeros where FreeTensor's ft.empty is
summed into before any write.)
teml: accepted since issue 46: the branch, in a loop over threadIdx.y that every thread runs once, is split at its barriers as FreeTensor splits it (each piece tests the condition again; it reads nothing the branch writes).
Case: the issue's case: a block-wide barrier inside the loop bound to threadIdx.y whose extent is
the block's.
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
            z[i] = z[i] + 2
@teml.schedule(f)
def g(s):
    s.parallelize("L0", "threadIdx.y")
    s.parallelize("L1", "threadIdx.x")
