"""Ports FreeTensor's test_gpu_sync.py::test_syncthreads_no_need_to_split_branch: a branch the block decides alike (on blockIdx.x; FreeTensor's opaque intrinsic, i % 2 == 0 in its earlier version) around a loop of lim[i, j] steps, j on threadIdx.y, whose gpu/shared pair a row of 64 lanes (two warps) sums into and lane 0 reads.

EXPECTED REFUSAL.

FreeTensor: accepts: the branch is the block's alike, so it leaves it unsplit, and puts a
__syncthreads inside the loop over k (checks the lowered AST only). But that loop's trip count
lim[i, j] differs between the block's rows (j is threadIdx.y, a row is 64 lanes: two warps), so rows
that finish early never reach the barrier the others wait at. (teml.zeros where FreeTensor's
ft.empty is summed into before any write.)
teml: 28_barrier_in_a_loop_whose_steps_differ_between_rows.py:29:21: error: this statement and the
one at line 27 need a barrier between them inside loop 'k' (line 26), within loop 'j', whose
iterations (threads of the block) may take it apart (its count or condition reads data or 'j'), so
not all of them would reach the barrier; move them out of it
Case: EXPECTED REFUSAL: a block barrier inside divergent control (a loop whose trip count differs
between threads of the block); FreeTensor accepts it, teml should not.
"""
import teml
@teml.transform
def f(lim: teml.Var[(3, 4), "int32"], x: teml.Var[(12, 10, 64), "int32"], y: teml.Var[(12, 10), "int32", "output"]):
    #! label: L0
    for i in range(3):
        #! label: L1
        for j in range(4):
            if i % 2 == 0:
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
