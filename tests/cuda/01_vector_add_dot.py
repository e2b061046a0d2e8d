"""Vector add and dot product, atomic sum."""
import teml
@teml.transform
def f(a: teml.Var[(1000,), "float32"], b: teml.Var[(1000,), "float32"],
      y: teml.Var[(1000,), "float32", "output"], s: teml.Var[(), "float32", "output"]):
    #! label: L
    for i in range(1000):
        y[i] = a[i] + b[i]
        s[()] += a[i] * b[i]
@teml.schedule(f)
def g(s):
    o, i = s.split("L", 128)
    s.parallelize(o, "blockIdx.x")
    s.parallelize(i, "threadIdx.x")
