"""Ports FreeTensor's test_gpu_sync.py::test_syncthreads_split_branch_out_of_const_loop: a constant-trip loop inside the loop bound to threadIdx.y, under a branch on threadIdx.y, around a gpu/shared pair the row's 64 lanes sum into (atomics) and lane 0 reads; 3 steps for FreeTensor's 10.

FreeTensor: accepts: it splits the branch i * 4 + j < 10 so that the constant loop over k runs in
every thread, with a __syncthreads inside it and the branch repeated around the statements (checks
the lowered AST only); t becomes (4, 2) shared. (teml.zeros where FreeTensor's ft.empty is summed
into before any write.) 3 steps of k for FreeTensor's 10.
teml: accepted since issue 46: the loop over k reads no tensor and not j in its bounds, so every
thread runs it as often; the branch (and the index checks hoisted around the loop) move into it and
split at its barriers: `for k: if c: fill; barrier; if c: sums; barrier; if c: y = t[0]`.
Case: the issue's case: a constant-trip loop inside the y loop.
"""
import teml
@teml.transform
def f(x: teml.Var[(10, 3, 64), "int32"], y: teml.Var[(10, 3), "int32", "output"]):
    #! label: L0
    for i in range(3):
        #! label: L1
        for j in range(4):
            if i * 4 + j < 10:
                #! label: L2
                for k in range(3):
                    t = teml.zeros((2,), "int32", "gpu/shared")
                    #! label: L3
                    for p in range(64):
                        t[p % 2] += x[i * 4 + j, k, p]
                    y[i * 4 + j, k] = t[0]
@teml.schedule(f)
def g(s):
    s.parallelize("L0", "blockIdx.x")
    s.parallelize("L1", "threadIdx.y")
    s.parallelize("L3", "threadIdx.x")
