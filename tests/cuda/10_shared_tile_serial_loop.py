"""A serial loop of the block around threads that share a tile (a barrier at the end of each step)."""
import teml
@teml.transform
def f(x: teml.Var[(4, 10, 64), "float64"], y: teml.Var[(4, 64), "float64", "output"]):
    #! label: Li
    for i in range(4):
        t = teml.zeros((64,), "float64")
        for k in range(10):
            #! label: La
            for a in range(64):
                t[a] = x[i, k, a] * (k + 1)
            #! label: Lb
            for a in range(64):
                y[i, a] += t[63 - a]
@teml.schedule(f)
def g(s):
    s.parallelize("Li", "blockIdx.x")
    s.parallelize("La", "threadIdx.x")
    s.parallelize("Lb", "threadIdx.x")
