"""Ports FreeTensor's test_gpu.py::test_bounded_length: a thread loop whose extent depends on an enclosing iterator (for j in range(i) on threadIdx.y, i on threadIdx.x).

FreeTensor: accepts: threadIdx.y takes the loop's largest extent (i - 1 at most) and a guard j < i
keeps the threads past each row's end idle (checks the lowered AST only). 20 x 20 for FreeTensor's
100 x 100 (99 x 99 threads would pass a GPU's limit).
teml: 03_thread_loop_bounded_by_an_enclosing_iterator.py:16:9: error: loop 'j', bound to threadIdx.y, needs a constant trip count: a block's threads are fixed when the kernel starts (split the loop by a constant and bind the inner one)
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
