"""fission of a loop bound to threadIdx.x across a tensor local to it: the tensor becomes local to the block's loop (one row per block, in shared memory), and each thread reads in the second loop the element it wrote in the first, so no barrier is needed between them.

teml: accepted since issue 44 (fission makes a loop's local tensor that both parts use local to the loop around it; docs/transformations.md).
Case: a scalar per thread computed before a loop and read inside it, cut apart.
"""
import teml
@teml.transform
def f(e: teml.Var[(8, 32), "float32"], s: teml.Var[(8,), "float32"], g: teml.Var[(8, 4), "float32"],
      out: teml.Var[(8, 32), "float32", "output"]):
    t = teml.zeros((8, 32), "float32")
    #! label: Li
    for i in range(8):
        #! label: Lj
        for j in range(32):
            t[i, j] = e[i, j] * s[i] + 1
            for d in range(4):
                out[i, j] += g[i, d] * t[i, j]
@teml.schedule(f)
def g(s):
    s.parallelize("Li", "blockIdx.x")
    s.parallelize("Lj", "threadIdx.x")
    s.local("Lj", "t")
    s.fission("Lj", 1)
