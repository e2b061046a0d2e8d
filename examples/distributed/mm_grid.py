# A matrix product on a grid of MPI ranks (docs/distributed.md, "Grids of
# ranks"): A2 and B2 are computed in blocks of the grid, then C = A2 B2
# with its rows and columns split over the grid's rows and columns. Before
# the product each rank receives the rows of A2 its grid row needs from
# the other ranks of that row and the columns of B2 its grid column needs
# from the other ranks of that column: the panels SUMMA broadcasts.
# On one process the same loops run on threads.
import teml


@teml.transform
def mm(A: teml.Var[(N, K), "float64"], B: teml.Var[(K, M), "float64"], C: teml.Var[(N, M), "float64", "output"]):
    A2 = teml.zeros((N, K), "float64")
    B2 = teml.zeros((K, M), "float64")
    #! label: La
    for i in range(N):
        #! label: La_k
        for k in range(K):
            A2[i, k] = A[i, k] * 2.0 + 1.0
    #! label: Lb
    for k in range(K):
        #! label: Lb_j
        for j in range(M):
            B2[k, j] = B[k, j] - 3.0
    #! label: Li
    for i in range(N):
        #! label: Lj
        for j in range(M):
            for k in range(K):
                C[i, j] += A2[i, k] * B2[k, j]


@teml.schedule(mm)
def schedule(s):
    s.distribute("La")
    s.distribute("La_k")
    s.parallelize("La")
    s.distribute("Lb")
    s.distribute("Lb_j")
    s.parallelize("Lb")
    s.distribute("Li")
    s.distribute("Lj")
    s.parallelize("Li")
