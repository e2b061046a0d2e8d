"""Ports FreeTensor's test_gpu.py::test_global_mem_dynamic: a gpu/global tensor between two kernels whose loops run n times, n read at run time.

FreeTensor: accepts: n is a byvalue scalar (the host knows it at launch), the block gets n threads
and t n elements from a pool; runs with n = 4 and checks y.
teml: 16_thread_loops_of_a_run_time_count.py:15:5: error: loop 'i', bound to threadIdx.x, needs a trip count bounded when the kernel starts: a block's threads are fixed then (its bounds read data or loops of unknown range; split the loop by a constant and bind the inner one)
Case: not one of the issue's listed cases: a thread loop whose count is a value the host reads at
run time (FreeTensor's byvalue). teml's nearest spelling is a 0-d input tensor, which lives on the
GPU; a size parameter (--set) would make it a compile-time constant.
"""
import teml
@teml.transform
def f(n: teml.Var[(), "int32"], x: teml.Var[(8,), "int32"], y: teml.Var[(8,), "int32", "output"]):
    t = teml.empty((8,), "int32", "gpu/global")
    #! label: L1
    for i in range(n[()]):
        t[i] = x[i] * 2
    #! label: L2
    for i in range(n[()]):
        y[i] = t[i] + 1
@teml.schedule(f)
def g(s):
    s.parallelize("L1", "threadIdx.x")
    s.parallelize("L2", "threadIdx.x")
