"""Ports FreeTensor's test_gpu.py::test_unbounded_length: a loop of n iterations, n in GPU memory, bound to threadIdx.x.

EXPECTED REFUSAL.

FreeTensor: refuses it (InvalidProgram at lowering): n is in gpu/global memory, so the block's size
is unknown at launch.
teml: 24_thread_loop_of_a_count_in_gpu_memory.py:14:5: error: loop 'i', bound to threadIdx.x, needs a trip count bounded when the kernel starts: a block's threads are fixed then (its bounds read data or loops of unknown range; split the loop by a constant and bind the inner one)
Case: EXPECTED REFUSAL: FreeTensor refuses it too.
"""
import teml
@teml.transform
def f(n: teml.Var[(), "int32"], x: teml.Var[(8,), "int32"], y: teml.Var[(8,), "int32", "output"]):
    #! label: L1
    for i in range(n[()]):
        y[i] = x[i] + 1
@teml.schedule(f)
def g(s):
    s.parallelize("L1", "threadIdx.x")
