"""Ports FreeTensor's test_gpu_sync.py::test_syncthreads_not_at_outer_loop: one gpu/shared row written before a serial loop, another written in each of its steps; both read reversed.

FreeTensor: accepts, with no barrier between the writes of t0 and the loop over p ("# Not here"):
the barrier inside p, before the reads, orders them (checks the lowered AST only). 64 lanes for
FreeTensor's 256.
teml: accepted (verify: ok); see Case
Case: not one of the issue's listed cases. teml accepts this program (the emulator agrees with the
interpreter, nvcc compiles it), but puts a block barrier between the loop that writes t0 and the
loop over p that FreeTensor's test says is not needed; tests/cuda_target_test.cpp's
EveryBarrierTheCompilerInsertedIsNeeded... fails on it (without the second of its five barriers, the
one before the loop over p, the emulator finds no race), so it is not in tests/cuda/.
"""
import teml
@teml.transform
def f(x0: teml.Var[(4, 64), "int32"], x1: teml.Var[(4, 5, 64), "int32"], y: teml.Var[(4, 5, 64), "int32", "output"]):
    #! label: L0
    for i in range(4):
        t0 = teml.empty((64,), "int32", "gpu/shared")
        #! label: L1
        for j in range(64):
            t0[j] = x0[i, j]
        for p in range(5):
            t1 = teml.empty((64,), "int32", "gpu/shared")
            #! label: L2
            for j in range(64):
                t1[j] = x1[i, p, j]
            #! label: L3
            for j in range(64):
                y[i, p, j] = t0[63 - j] + t1[63 - j]
@teml.schedule(f)
def g(s):
    s.parallelize("L0", "blockIdx.x")
    s.parallelize("L1", "threadIdx.x")
    s.parallelize("L2", "threadIdx.x")
    s.parallelize("L3", "threadIdx.x")
