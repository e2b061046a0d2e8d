"""Ports FreeTensor's test_gpu_sync.py::test_syncthreads_between_cond_and_body_of_a_branch: a serial loop in 8 x 32 threads whose branch reads x[threadIdx.y] and lane 0 then writes it.

FreeTensor: runs gpu_make_sync on the loaded AST and checks that one __syncwarp goes at the end of
the body of the loop over i, none between the branch's condition and its body (checks the AST only).
6 steps for FreeTensor's 5856; x[ty] >= 0 for FreeTensor's > 0, so that the zero-filled inout x
takes the branch.
teml: 22_lane_zero_writes_what_all_lanes_test.py:20:17: error: data race on x[0] in kernel 'teml_block': the statement at line 22 writes it in thread (0, 0, 0) of block (0, 0, 0), and this statement reads it in thread (1, 0, 0) of block (0, 0, 0), with no barrier between them
Case: not one of the issue's listed cases. teml accepts the schedule (the lowered loop over
threadIdx.x is marked carries-dependence) and compiles it; the emulator reports the read of x[ty] by
every lane in the same step as lane 0's write of it.
"""
import teml
@teml.transform
def f(x: teml.Var[(8,), "float32", "inout"]):
    #! label: Ly
    for ty in range(8):
        #! label: Lx
        for tx in range(32):
            for i in range(6):
                if x[ty] >= 0:
                    if tx == 0:
                        x[ty] = 1
@teml.schedule(f)
def g(s):
    s.parallelize("Ly", "threadIdx.y")
    s.parallelize("Lx", "threadIdx.x")
