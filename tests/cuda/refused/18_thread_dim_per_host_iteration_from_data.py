"""Ports FreeTensor's test_gpu.py::test_dynamic_thread_dim_by_cpu_iters: a loop of n[i] iterations bound to threadIdx.x inside a loop of the host over i.

FreeTensor: accepts: n byvalue, a kernel per i with n[i] threads; runs with n = [5, 10, 15, 20] and
checks y.
teml: 18_thread_dim_per_host_iteration_from_data.py:15:9: error: loop 'j', bound to threadIdx.x, needs a trip count bounded when the kernel starts: a block's threads are fixed then (its bounds read data or loops of unknown range; split the loop by a constant and bind the inner one)
Case: not one of the issue's listed cases: a thread loop whose count the host reads at run time
(byvalue), per iteration of a loop of the host.
"""
import teml
@teml.transform
def f(n: teml.Var[(4,), "int32"], y: teml.Var[(4, 20), "int32", "inout"]):
    #! label: Li
    for i in range(4):
        #! label: Lj
        for j in range(n[i]):
            y[i, j] = i * j
@teml.schedule(f)
def g(s):
    s.parallelize("Lj", "threadIdx.x")
