"""A statement of the host in a one-thread kernel before a reduction."""
import teml
@teml.transform
def f(x: teml.Var[(200,), "float64"], s: teml.Var[(), "float64", "output"]):
    s[()] = 1.0
    #! label: L
    for i in range(200):
        s[()] += x[i] * x[i]
@teml.schedule(f)
def g(s):
    s.parallelize("L", "threadIdx.x")
