"""A 2-D block: a CSR row's entries in 8 chunks on threadIdx.y (one warp
each), the features on threadIdx.x. A warp's statements outside its lanes'
loop that write what the block shares run in lane 0 (the flush of each
warp's register sum), the block's loop over threadIdx.x alone runs where
threadIdx.y is 0, and a warp's own values (w) are computed by all its
lanes."""
import teml
@teml.transform
def f(rowptr: teml.Var[(11,), "int32"], col: teml.Var[(230,), "int32"], s: teml.Var[(10,), "float32"],
      x: teml.Var[(10, 32), "float32"], y: teml.Var[(10, 32), "float32", "output"]):
    #! label: Lrow
    for i in range(10):
        total = teml.zeros((), "float32")
        acc = teml.zeros((32,), "float32")
        #! label: Lsum
        for k in range(rowptr[i], rowptr[i + 1]):
            w = teml.exp(s[col[k]])
            total[()] += w
            #! label: Lc
            for c in range(32):
                acc[c] += w * x[col[k], c]
        if rowptr[i] < rowptr[i + 1]:
            #! label: Lout
            for c in range(32):
                y[i, c] = acc[c] / total
@teml.schedule(f)
def g(s):
    s.parallelize("Lrow", "blockIdx.x")
    warps, _ = s.split("Lsum", nparts=8)
    s.parallelize(warps, "threadIdx.y")
    s.cache_reduce(warps, "total")
    s.parallelize("Lc", "threadIdx.x")
    s.parallelize("Lout", "threadIdx.x")
