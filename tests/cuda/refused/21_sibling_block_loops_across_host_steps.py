"""Ports FreeTensor's test_gpu_sync.py::test_dont_reject_false_dependence_between_blocks: two loops bound to blockIdx.y inside one bound to blockIdx.x, the second (for p > 0) reading what the first wrote in the previous step of a loop of the host.

FreeTensor: accepts (no exception): the two loops on blockIdx.y share one grid, and the second reads
only what the previous step's kernel wrote.
teml: 21_sibling_block_loops_across_host_steps.py:17:13: error: loop 'j' is bound to blockIdx.y but is not directly inside the kernel's other loops bound to blockIdx
Case: not one of the issue's listed cases: sibling loops bound to blockIdx.y inside the loop bound
to blockIdx.x (teml wants loops on blockIdx perfectly nested at the kernel's top).
"""
import teml
@teml.transform
def f(x: teml.Var[(4, 4, 4), "float32"], y: teml.Var[(4, 4, 4), "float32", "output"]):
    t = teml.empty((4, 4, 4), "float32", "gpu/global")
    for p in range(4):
        #! label: Li
        for i in range(4):
            #! label: Lj
            for j in range(4):
                t[p, i, j] = x[p, i, j] * 2
            if p > 0:
                #! label: Lj1
                for j in range(4):
                    y[p, i, j] = t[p - 1, i, (j + 1) % 4]
@teml.schedule(f)
def g(s):
    s.parallelize("Li", "blockIdx.x")
    s.parallelize("Lj", "blockIdx.y")
    s.parallelize("Lj1", "blockIdx.y")
