# The heat equation in one dimension, explicit time steps, split across MPI
# ranks: each step reads the neighbours' points of the step before, so
# before each step every rank receives one point from each neighbour (a
# halo), inside the time loop (docs/distributed.md, "Time loops"). The ends
# stay fixed. Each rank runs its block on threads too (one process: threads only).
import teml


@teml.transform
def heat(u0: teml.Var[(N,), "float64"], u: teml.Var[(N,), "float64", "output"]):
    v = teml.zeros((N,), "float64")
    #! label: Lstart
    for i in range(N):
        u[i] = u0[i]
    for t in range(T):
        #! label: Lstep
        for i in range(1, N - 1):
            v[i] = u[i] + 0.25 * (u[i - 1] - 2.0 * u[i] + u[i + 1])
        #! label: Lcopy
        for i in range(1, N - 1):
            u[i] = v[i]


@teml.schedule(heat)
def schedule(s):
    s.distribute("Lstart")
    s.parallelize("Lstart")
    s.distribute("Lstep")
    s.parallelize("Lstep")
    s.distribute("Lcopy")
    s.parallelize("Lcopy")
