# A SubdivNet-like gather across MPI ranks: each rank computes its rows of h,
# then every face sums the rows of h its neighbours (indices from data) hold.
# isl cannot bound rows named by data, so every rank receives all of h it
# does not hold (a gather that replicates h; docs/distributed.md).
import teml


@teml.transform
def gather(x: teml.Var[(F, C), "int64"], adj: teml.Var[(F, 3), "int32"], y: teml.Var[(F, C), "int64", "output"]):
    h = teml.empty((F, C), "int64")
    #! label: Lh
    for i in range(F):
        for c in range(C):
            h[i, c] = x[i, c] * 3 + i
    #! label: Ly
    for i in range(F):
        for k in range(3):
            for c in range(C):
                y[i, c] += h[adj[i, k], c] * (k + 1)


@teml.schedule(gather)
def schedule(s):
    s.distribute("Lh")
    s.distribute("Ly")
