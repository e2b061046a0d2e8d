# A pointwise map and a centred difference, whose gradient `teml grad`
# splits across MPI ranks (docs/distributed.md, "Running"): the backward
# pass of the difference scatters into x.grad[i - 1] and x.grad[i + 1], so
# only the two rows around each edge between two ranks' blocks are summed
# across them; w.grad is summed over every rank.
#   mpirun -np 2 teml grad examples/distributed/stencil_gradient.py --set N=200000 --set C=16 \
#       --random 1 --wrt x,w --of y
import teml


@teml.transform
def f(x: teml.Var[(N, C), "float64"], w: teml.Var[(C,), "float64"], y: teml.Var[(N, C), "float64", "output"]):
    for i in range(N):
        for c in range(C):
            y[i, c] = teml.exp(x[i, c] * w[c]) + teml.sin(x[i, c])
    for i in range(1, N - 1):
        for c in range(C):
            y[i, c] += 0.5 * (x[i - 1, c] - x[i + 1, c]) * w[c]
