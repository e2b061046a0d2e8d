"""Ports FreeTensor's test_gpu.py::test_bounded_length: a thread loop whose extent depends on an enclosing iterator (for j in range(i) on threadIdx.y, i on threadIdx.x).

FreeTensor: accepts: threadIdx.y takes the loop's largest extent (i - 1 at most) and a guard j < i
keeps the threads past each row's end idle (checks the lowered AST only). 20 x 20 for FreeTensor's
100 x 100 (99 x 99 threads would pass a GPU's limit).
teml: accepted since issue 46: the block takes the loop's largest count over the ranges of the loops around it, and a thread past an iteration's count stays idle (once refused: "needs a constant trip count").
Case: the issue's case: a thread loop whose extent depends on an enclosing iterator (for j in
range(i) on threadIdx.y, i on threadIdx.x).
"""
import teml
@teml.transform
def f(a: teml.Var[(20, 20), "int32"], b: teml.Var[(20, 20), "int32", "output"]):
    #! label: Li
    for i in range(20):
        #! label: Lj
        for j in range(i):
            b[i, j] = a[i, j] + 1
@teml.schedule(f)
def g(s):
    s.parallelize("Lj", "threadIdx.y")
    s.parallelize("Li", "threadIdx.x")
