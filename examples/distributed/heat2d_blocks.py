# The heat equation on a 2-D grid, split across MPI ranks in blocks of rows
# and columns (a grid of ranks: 2 x 2 on 4, chosen by `--ranks-grid` or the
# most even split), two half steps a time step. Before each half step every
# rank receives from its neighbours the row above and below its block and
# the column left and right of it (docs/distributed.md, "Grids of ranks").
import teml


@teml.transform
def heat(u0: teml.Var[(N, M), "float64"], u: teml.Var[(N, M), "float64", "output"]):
    v = teml.zeros((N, M), "float64")
    #! label: Lstart
    for i in range(N):
        #! label: Lstart_j
        for j in range(M):
            u[i, j] = u0[i, j]
            v[i, j] = u0[i, j]
    for t in range(T):
        #! label: Lodd
        for i in range(1, N - 1):
            #! label: Lodd_j
            for j in range(1, M - 1):
                v[i, j] = u[i, j] + 0.125 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j])
        #! label: Leven
        for i in range(1, N - 1):
            #! label: Leven_j
            for j in range(1, M - 1):
                u[i, j] = v[i, j] + 0.125 * (v[i - 1, j] + v[i + 1, j] + v[i, j - 1] + v[i, j + 1] - 4.0 * v[i, j])


@teml.schedule(heat)
def schedule(s):
    s.distribute("Lstart")
    s.distribute("Lstart_j")
    s.parallelize("Lstart")
    s.distribute("Lodd")
    s.distribute("Lodd_j")
    s.parallelize("Lodd")
    s.distribute("Leven")
    s.distribute("Leven_j")
    s.parallelize("Leven")
