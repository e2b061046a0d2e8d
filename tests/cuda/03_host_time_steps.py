"""Time steps on the host around two kernels each."""
import teml
@teml.transform
def f(a: teml.Var[(300,), "float64", "inout"], b: teml.Var[(300,), "float64", "output"]):
    for t in range(4):
        #! label: L1
        for i in range(300):
            b[i] = a[i] * 0.5 + a[(i + 1) % 300] * 0.25
        #! label: L2
        for i in range(300):
            a[i] = b[i] + 1.0
@teml.schedule(f)
def g(s):
    o, i = s.split("L1", 64)
    s.parallelize(o, "blockIdx.x")
    s.parallelize(i, "threadIdx.x")
    o, i = s.split("L2", 64)
    s.parallelize(o, "blockIdx.x")
    s.parallelize(i, "threadIdx.x")
