"""Ports FreeTensor's test_gpu_sync.py::test_reject_dependence_between_blocks: two loops bound to blockIdx.y inside one bound to blockIdx.x, the second reading what other blocks of the first wrote.

EXPECTED REFUSAL.

FreeTensor: refuses it (InvalidProgram): the second loop on blockIdx.y reads what other blocks of
the first wrote.
teml: 26_sibling_block_loops_with_a_dependence.py:18:9: error: loop 'j' is bound to blockIdx.y but is not directly inside the kernel's other loops bound to blockIdx
Case: EXPECTED REFUSAL: FreeTensor refuses it too (for the dependence between blocks; teml for the
loops on blockIdx not perfectly nested, before looking at the dependence).
"""
import teml
@teml.transform
def f(x: teml.Var[(4, 4), "float32"], y: teml.Var[(4, 4), "float32", "output"]):
    t = teml.empty((4, 4), "float32", "gpu/global")
    #! label: Li
    for i in range(4):
        #! label: Lj
        for j in range(4):
            t[i, j] = x[i, j] * 2
        #! label: Lj1
        for j in range(4):
            y[i, j] = t[i, (j + 1) % 4]
@teml.schedule(f)
def g(s):
    s.parallelize("Li", "blockIdx.x")
    s.parallelize("Lj", "blockIdx.y")
    s.parallelize("Lj1", "blockIdx.y")
