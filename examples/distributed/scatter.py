# Message passing by scatter (push): each node adds its features, weighted
# by its edges, into the rows of the nodes its edges name, then each node
# updates its own row. Under mpirun each rank runs a block of the nodes; the
# scattered sums go to the rank that owns their rows (owner-computes), which
# is the rank whose block of the update reads them: only changed rows move
# (docs/distributed.md, "Reductions into rows other ranks own").
import teml


@teml.transform
def push(ptr: teml.Var[(N + 1,), "int32"], col: teml.Var[(M,), "int32"], x: teml.Var[(N, C), "int64"],
         g: teml.Var[(N, C), "int64", "output"], y: teml.Var[(N, C), "int64", "output"]):
    #! label: Lpush
    for i in range(N):
        for p in range(ptr[i], ptr[i + 1]):
            for c in range(C):
                g[col[p], c] += x[i, c] * (p % 7 + 1)
    #! label: Lnode
    for i in range(N):
        for c in range(C):
            y[i, c] = 2 * g[i, c] + x[i, c]


@teml.schedule(push)
def schedule(s):
    s.distribute("Lpush")
    s.distribute("Lnode")
