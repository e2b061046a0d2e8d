"""Matrix product on a 2-D grid of 2-D blocks, sizes the blocks do not divide."""
import teml
@teml.transform
def f(a: teml.Var[(50, 20), "float64"], b: teml.Var[(20, 37), "float64"], c: teml.Var[(50, 37), "float64", "output"]):
    #! label: Li
    for i in range(50):
        #! label: Lj
        for j in range(37):
            for k in range(20):
                c[i, j] += a[i, k] * b[k, j]
@teml.schedule(f)
def g(s):
    io, ii = s.split("Li", 16)
    jo, ji = s.split("Lj", 16)
    s.reorder([io, jo, ii, ji])
    s.parallelize(io, "blockIdx.y")
    s.parallelize(jo, "blockIdx.x")
    s.parallelize(ii, "threadIdx.y")
    s.parallelize(ji, "threadIdx.x")
