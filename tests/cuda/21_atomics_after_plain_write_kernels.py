"""Atomic updates (int32, int64, float32) in kernels that follow kernels of
plain writes: each kernel's updates counted once (the emulator put back the
previous kernel's tensor between the orders it runs a kernel in, not its
own, and counted these updates three times: s = -300, not -100)."""
import teml
@teml.transform
def f(y: teml.Var[(64,), "int32", "output"], s: teml.Var[(), "int32", "output"],
      z: teml.Var[(64,), "int64", "output"], t: teml.Var[(4,), "int64", "output"],
      w: teml.Var[(64,), "float32", "output"], u: teml.Var[(), "float32", "output"]):
    #! label: A
    for i in range(64):
        y[i] = i + 2
    #! label: B
    for i in range(100):
        s[()] -= 1
    #! label: C
    for i in range(64):
        z[i] = y[i] * 3
    #! label: D
    for i in range(300):
        t[i % 4] += z[i % 64]
    #! label: E
    for i in range(64):
        w[i] = 0.5
    #! label: F
    for i in range(200):
        u[()] += w[i % 64]
@teml.schedule(f)
def g(s):
    o, i = s.split("A", 64)
    s.parallelize(o, "blockIdx.x")
    s.parallelize(i, "threadIdx.x")
    o, i = s.split("B", 64)
    s.parallelize(o, "blockIdx.x")
    s.parallelize(i, "threadIdx.x")
    o, i = s.split("C", 64)
    s.parallelize(o, "blockIdx.x")
    s.parallelize(i, "threadIdx.x")
    o, i = s.split("D", 64)
    s.parallelize(o, "blockIdx.x")
    s.parallelize(i, "threadIdx.x")
    o, i = s.split("E", 64)
    s.parallelize(o, "blockIdx.x")
    s.parallelize(i, "threadIdx.x")
    o, i = s.split("F", 64)
    s.parallelize(o, "blockIdx.x")
    s.parallelize(i, "threadIdx.x")
