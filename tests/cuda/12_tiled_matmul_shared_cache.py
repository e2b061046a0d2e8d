"""A tiled matrix product: tiles cached in gpu/shared, copied by the block's threads."""
import teml
@teml.transform
def f(a: teml.Var[(64, 48), "float32"], b: teml.Var[(48, 64), "float32"], c: teml.Var[(64, 64), "float32", "output"]):
    #! label: Li
    for i in range(64):
        #! label: Lj
        for j in range(64):
            #! label: Lk
            for k in range(48):
                c[i, j] += a[i, k] * b[k, j]
@teml.schedule(f)
def g(s):
    io, ii = s.split("Li", 16)
    jo, ji = s.split("Lj", 16)
    ko, ki = s.split("Lk", 16)
    s.reorder([io, jo, ko, ii, ji, ki])
    s.cache(ko, "a", "gpu/shared")
    s.cache(ko, "b", "gpu/shared")
    s.parallelize(io, "blockIdx.y")
    s.parallelize(jo, "blockIdx.x")
    s.parallelize(ii, "threadIdx.y")
    s.parallelize(ji, "threadIdx.x")
