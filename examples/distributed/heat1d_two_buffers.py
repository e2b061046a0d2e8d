# The heat equation in one dimension as many CFD codes write it: two
# buffers taking turns, each step reading w[t % 2] and writing
# w[(t + 1) % 2], so nothing is copied back. Under mpirun the time loop runs
# in pairs of steps, each with its halo (docs/distributed.md, "Time loops").
# The ends stay fixed.
import teml


@teml.transform
def heat(u0: teml.Var[(N,), "float64"], u: teml.Var[(N,), "float64", "output"]):
    w = teml.zeros((2, N), "float64")
    #! label: Lstart
    for i in range(N):
        w[0, i] = u0[i]
        w[1, i] = u0[i]
    for t in range(T):
        #! label: Lstep
        for i in range(1, N - 1):
            w[(t + 1) % 2, i] = w[t % 2, i] + 0.25 * (w[t % 2, i - 1] - 2.0 * w[t % 2, i] + w[t % 2, i + 1])
    #! label: Lend
    for i in range(N):
        u[i] = w[T % 2, i]


@teml.schedule(heat)
def schedule(s):
    s.distribute("Lstart")
    s.parallelize("Lstart")
    s.distribute("Lstep")
    s.parallelize("Lstep")
    s.distribute("Lend")
    s.parallelize("Lend")
