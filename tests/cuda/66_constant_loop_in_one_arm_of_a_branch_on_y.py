"""A constant-trip loop holding barriers in the then arm of an if/else on threadIdx.y, barriers in the else arm too: the arms run one after the other, the else arm under the negated condition, so every thread reaches every barrier.

FreeTensor: no test of its own; it moves the branch into the constant loop as in
test_syncthreads_split_branch_out_of_const_loop (tests/cuda/65).
teml: accepted: the then arm becomes `for k: if c: ...; barrier; if c: ...` and the else arm
`if not c: ...; barrier; if not c: ...` after it (rows of other iterations of the y loop never meet).
Case: the issue's case: a constant-trip loop inside the y loop, with an else arm.
"""
import teml
@teml.transform
def f(x: teml.Var[(8, 3, 64), "int32"], y: teml.Var[(8, 3), "int32", "output"]):
    #! label: L0
    for i in range(2):
        #! label: L1
        for j in range(4):
            if j % 2 == 0:
                #! label: L2
                for k in range(3):
                    t = teml.zeros((2,), "int32", "gpu/shared")
                    #! label: L3
                    for p in range(64):
                        t[p % 2] += x[i * 4 + j, k, p]
                    y[i * 4 + j, k] = t[0] + 3 * t[1]
            else:
                u = teml.zeros((2,), "int32", "gpu/shared")
                #! label: L4
                for p in range(64):
                    u[p % 2] += x[i * 4 + j, 0, p] * 2
                for k in range(3):
                    y[i * 4 + j, k] = u[k % 2]
@teml.schedule(f)
def g(s):
    s.parallelize("L0", "blockIdx.x")
    s.parallelize("L1", "threadIdx.y")
    s.parallelize("L3", "threadIdx.x")
    s.parallelize("L4", "threadIdx.x")
