"""Ports FreeTensor's test_gpu.py::test_dynamic_thread_dim_1: a loop of n iterations (n read at run time) bound to threadIdx.x.

FreeTensor: accepts: n byvalue, n threads; runs with n = 5 and checks y.
teml: 17_thread_dim_of_a_run_time_count.py:12:5: error: loop 'i', bound to threadIdx.x, needs a trip count bounded when the kernel starts: a block's threads are fixed then (its bounds read data or loops of unknown range; split the loop by a constant and bind the inner one)
Case: not one of the issue's listed cases: a thread loop whose count the host reads at run time
(byvalue).
"""
import teml
@teml.transform
def f(n: teml.Var[(), "int32"], x: teml.Var[(8, 8), "int32"], y: teml.Var[(8, 8), "int32", "output"]):
    #! label: L1
    for i in range(n[()]):
        #! label: L2
        for j in range(n[()]):
            y[i, j] = x[i, j] + 1
@teml.schedule(f)
def g(s):
    s.parallelize("L1", "threadIdx.x")
