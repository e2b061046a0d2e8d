# Diffusion on a graph, explicit time steps, split across MPI ranks: each
# step averages every node with the nodes its edges name (a CSR matrix,
# columns from data), so each rank needs, every step, the rows of the other
# ranks its edges name. The inspector that finds them runs once, before the
# time loop, since the graph does not change inside it; the rows move every
# step (docs/distributed.md, "Gathers through indices"). Each rank runs its
# block on threads too (one process: threads only).
import teml


@teml.transform
def diffuse(ptr: teml.Var[(N + 1,), "int32"], col: teml.Var[(M,), "int32"], u0: teml.Var[(N, C), "int64"],
            u: teml.Var[(N, C), "int64", "output"]):
    v = teml.zeros((N, C), "int64")
    #! label: Lstart
    for i in range(N):
        for c in range(C):
            u[i, c] = u0[i, c]
    for t in range(T):
        #! label: Lstep
        for i in range(N):
            for c in range(C):
                v[i, c] = u[i, c]
            for p in range(ptr[i], ptr[i + 1]):
                for c in range(C):
                    v[i, c] += u[col[p], c] - u[i, c]
        #! label: Lcopy
        for i in range(N):
            for c in range(C):
                u[i, c] = v[i, c] % 1000003


@teml.schedule(diffuse)
def schedule(s):
    s.distribute("Lstart")
    s.parallelize("Lstart")
    s.distribute("Lstep")
    s.parallelize("Lstep")
    s.distribute("Lcopy")
    s.parallelize("Lcopy")
