# A GAT-like sparse row product across MPI ranks: each rank computes its rows
# of h, then sums over the nonzeros of its rows of a CSR matrix (bounds and
# columns from data), and every rank adds its rows into a total (a reduction
# combined across the ranks).
import teml


@teml.transform
def csr(ptr: teml.Var[(N + 1,), "int32"], col: teml.Var[(M,), "int32"], x: teml.Var[(N, C), "int64"],
        y: teml.Var[(N, C), "int64", "output"], total: teml.Var[(C,), "int64", "inout"]):
    h = teml.empty((N, C), "int64")
    #! label: Lh
    for i in range(N):
        for c in range(C):
            h[i, c] = x[i, c] - 2 * i
    #! label: Ly
    for i in range(N):
        for p in range(ptr[i], ptr[i + 1]):
            for c in range(C):
                y[i, c] += h[col[p], c]
                total[c] += h[col[p], c]


@teml.schedule(csr)
def schedule(s):
    s.distribute("Lh")
    s.distribute("Ly")
