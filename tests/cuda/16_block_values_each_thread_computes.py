"""A small tensor the block writes outside its thread loops and the threads
only read is each thread's own copy, computed by every thread (w: no store
by thread 0, no barrier); one written by a statement that also writes
global memory stays shared (big: that statement runs in thread 0)."""
import teml
@teml.transform
def f(x: teml.Var[(8, 32), "float32"], s: teml.Var[(8,), "float32"], y: teml.Var[(8, 32), "float32", "output"],
      m: teml.Var[(8,), "float32", "output"]):
    #! label: Li
    for i in range(8):
        w = teml.zeros((), "float32")
        w[()] = s[i] * 2
        big = teml.zeros((), "float32")
        for k in range(4):
            m[i] += s[i]
            big[()] += s[i] * k
        #! label: Lj
        for j in range(32):
            y[i, j] = x[i, j] * w + big
@teml.schedule(f)
def g(s):
    s.parallelize("Li", "blockIdx.x")
    s.parallelize("Lj", "threadIdx.x")
