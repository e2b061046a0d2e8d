"""A block's tensor in shared memory, written and read by different threads of 2-D blocks."""
import teml
@teml.transform
def f(x: teml.Var[(6, 8, 40), "float32"], y: teml.Var[(6, 8, 40), "float32", "output"]):
    #! label: Li
    for i in range(6):
        t = teml.zeros((8, 40), "float32")
        #! label: La
        for a in range(8):
            #! label: Lb
            for b in range(40):
                t[a, b] = x[i, a, b] * 2.0
        #! label: Lc
        for a in range(8):
            #! label: Ld
            for b in range(40):
                y[i, a, b] = t[(a + 1) % 8, b] + t[a, (b + 39) % 40]
@teml.schedule(f)
def g(s):
    s.parallelize("Li", "blockIdx.x")
    s.parallelize("La", "threadIdx.y")
    s.parallelize("Lb", "threadIdx.x")
    s.parallelize("Lc", "threadIdx.y")
    s.parallelize("Ld", "threadIdx.x")
