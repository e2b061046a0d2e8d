"""A matrix product in 32 x 32 tiles of 8 x 8 threads, each thread a 4 x 4 patch: tiles larger than the block, copied by all its threads in turn, and a reorder past loops whose bounds use the split's outer loops."""
import teml
@teml.transform
def f(a: teml.Var[(64, 40), "float32"], b: teml.Var[(40, 96), "float32"], c: teml.Var[(64, 96), "float32", "output"]):
    #! label: Li
    for i in range(64):
        #! label: Lj
        for j in range(96):
            #! label: Lk
            for k in range(40):
                c[i, j] += a[i, k] * b[k, j]
@teml.schedule(f)
def g(s):
    io, i = s.split("Li", 32)
    ii, i4 = s.split(i, 4)
    jo, j = s.split("Lj", 32)
    ji, j4 = s.split(j, 4)
    ko, k = s.split("Lk", 8)
    s.reorder([io, jo, ko, ii, ji, i4, j4, k])
    s.cache(ko, "a", "gpu/shared")
    s.cache(ko, "b", "gpu/shared")
    s.parallelize(io, "blockIdx.y")
    s.parallelize(jo, "blockIdx.x")
    s.parallelize(ii, "threadIdx.y")
    s.parallelize(ji, "threadIdx.x")
