# The heat equation on a 2-D grid, split across MPI ranks by rows, two
# half steps a time step (u to v, then v to u: no copy back). Before each
# half step every rank receives the row next to its block from each
# neighbour, inside the time loop (docs/distributed.md, "Time loops").
# Each rank runs its block on threads too (one process: threads only).
import teml


@teml.transform
def heat(u0: teml.Var[(N, M), "float64"], u: teml.Var[(N, M), "float64", "output"]):
    v = teml.zeros((N, M), "float64")
    #! label: Lstart
    for i in range(N):
        for j in range(M):
            u[i, j] = u0[i, j]
            v[i, j] = u0[i, j]
    for t in range(T):
        #! label: Lodd
        for i in range(1, N - 1):
            for j in range(1, M - 1):
                v[i, j] = u[i, j] + 0.125 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j])
        #! label: Leven
        for i in range(1, N - 1):
            for j in range(1, M - 1):
                u[i, j] = v[i, j] + 0.125 * (v[i - 1, j] + v[i + 1, j] + v[i, j - 1] + v[i, j + 1] - 4.0 * v[i, j])


@teml.schedule(heat)
def schedule(s):
    s.distribute("Lstart")
    s.parallelize("Lstart")
    s.distribute("Lodd")
    s.parallelize("Lodd")
    s.distribute("Leven")
    s.parallelize("Leven")
