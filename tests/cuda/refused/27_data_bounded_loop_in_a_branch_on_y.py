"""Ports FreeTensor's test_gpu_sync.py::test_syncthreads_no_split_branch_out_of_dynamic_loop: a loop of lim[i, j] steps under a branch on threadIdx.y, around a gpu/shared pair the row's 64 lanes sum into and lane 0 reads: the barrier would sit in control that differs between the block's rows.

EXPECTED REFUSAL.

FreeTensor: refuses it (InvalidProgram): the branch i * 4 + j < 10 cannot be split out of a loop of
lim[i, j] steps (lim may be invalid where the branch is false), so the __syncthreads would sit in
divergent control. (teml.zeros where FreeTensor's ft.empty is summed into before any write.)
teml: 27_data_bounded_loop_in_a_branch_on_y.py:26:21: error: this statement and the one at line 26
need a barrier between them inside loop 'k' (line 23), within loop 'j', whose iterations (threads of
the block) may take it apart (its count or condition reads data or 'j'), so not all of them would
reach the barrier; move them out of it
Case: EXPECTED REFUSAL: a barrier inside divergent control (FreeTensor refuses it too).
"""
import teml
@teml.transform
def f(lim: teml.Var[(3, 4), "int32"], x: teml.Var[(10, 10, 64), "int32"], y: teml.Var[(10, 10), "int32", "output"]):
    #! label: L0
    for i in range(3):
        #! label: L1
        for j in range(4):
            if i * 4 + j < 10:
                #! label: L2
                for k in range(lim[i, j]):
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
