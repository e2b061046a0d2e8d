"""Ports FreeTensor's test_gpu_normalize_buffer_shapes.py::test_multiplex_global_loop_invariant_but_still_multiplex_across_blocks: a gpu/global row defined inside the loop bound to blockIdx.x that every row fills alike and reads.

FreeTensor: accepts: t moves out of the kernel as a (4, 256) global array, a row per block (blocks
cannot share one); runs and checks y.
teml: accepted since issue 46: the host allocates the tensor around the kernel, a copy per block and thread of the loops around its definition, zeroed where it is defined (once refused: "defined inside a kernel").
Case: the issue's case: a gpu/global tensor defined inside a kernel.
"""
import teml
@teml.transform
def f(x: teml.Var[(64,), "int32"], y: teml.Var[(4, 64), "int32", "output"]):
    #! label: L0
    for i in range(4):
        t = teml.empty((64,), "int32", "gpu/global")
        #! label: L1
        for j in range(64):
            t[j] = x[j] * 2
        #! label: L2
        for j in range(64):
            y[i, j] = t[j] * i
@teml.schedule(f)
def g(s):
    s.parallelize("L0", "blockIdx.x")
    s.parallelize("L1", "threadIdx.x")
    s.parallelize("L2", "threadIdx.x")
