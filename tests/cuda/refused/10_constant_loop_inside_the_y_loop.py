"""Ports FreeTensor's test_gpu_sync.py::test_syncthreads_split_branch_out_of_const_loop: a constant-trip loop inside the loop bound to threadIdx.y, under a branch on threadIdx.y, around a gpu/shared pair the row's 64 lanes sum into (atomics) and lane 0 reads; 3 steps for FreeTensor's 10.

FreeTensor: accepts: it splits the branch i * 4 + j < 10 so that the constant loop over k runs in
every thread, with a __syncthreads inside it and the branch repeated around the statements (checks
the lowered AST only); t becomes (4, 2) shared. (teml.zeros where FreeTensor's ft.empty is summed
into before any write.) 3 steps of k for FreeTensor's 10.
teml: 10_constant_loop_inside_the_y_loop.py:22:21: error: this statement and the one at line 22 need a barrier between them (threads touch each other's elements), and they are inside loop 'j', bound to threadIdx.y, which not every thread may run; bind them to threads of the same loops
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
