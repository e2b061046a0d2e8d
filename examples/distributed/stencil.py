# Two passes of a vertical stencil, both split by rows across MPI ranks. The
# second pass reads two rows of tmp past each rank's block: they come from
# the next rank (a halo of two rows per neighbour), as the plan derives from
# the accesses (docs/distributed.md). Both loops split [0, N) alike; tmp's
# two rows past it stay 0.
import teml


@teml.transform
def stencil(a: teml.Var[(N + 2, W), "int64"], out: teml.Var[(N, W), "int64", "output"]):
    tmp = teml.zeros((N + 2, W), "int64")
    #! label: L1
    for i in range(N):
        for j in range(W):
            tmp[i, j] = a[i, j] + a[i + 1, j] * 2 + a[i + 2, j] * 3
    #! label: L2
    for i in range(N):
        for j in range(W):
            out[i, j] = tmp[i, j] - tmp[i + 1, j] + tmp[i + 2, j] * 5


@teml.schedule(stencil)
def schedule(s):
    s.distribute("L1")
    s.distribute("L2")
