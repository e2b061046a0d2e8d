"""Ports FreeTensor's test_gpu_normalize_buffer_shapes.py::test_multiplex_no_dependence: a gpu/shared row defined inside the loop bound to threadIdx.y, each row using its own part of it (lanes from i * 16); 16 lanes a row for FreeTensor's 64.

FreeTensor: accepts: t stays (256,) (the rows use disjoint parts), threadIdx.x takes 64 lanes at
offset i * 64 (checks the lowered AST only).
teml: accepted since issue 46: the block takes the loop's largest count over the ranges of the loops around it, and a thread past an iteration's count stays idle (once refused: "needs a constant trip count").
Case: related to the issue's case of a thread loop whose bounds depend on an enclosing iterator:
here only its start does (range(i * 16, (i + 1) * 16), 16 iterations for every i).
"""
import teml
@teml.transform
def f(x: teml.Var[(4, 64), "int32"], y: teml.Var[(4, 64), "int32", "output"]):
    #! label: L0
    for i in range(4):
        t = teml.empty((64,), "int32", "gpu/shared")
        #! label: L1
        for j in range(i * 16, (i + 1) * 16):
            t[j] = x[i, j] * 2
        #! label: L2
        for j in range(i * 16, (i + 1) * 16):
            y[i, j] = t[j] + 1
@teml.schedule(f)
def g(s):
    s.parallelize("L0", "threadIdx.y")
    s.parallelize("L1", "threadIdx.x")
    s.parallelize("L2", "threadIdx.x")
