"""Several rows per block, one warp each (threadIdx.y): a row's scores are
a tensor defined inside the loop over threadIdx.y that the warp's lanes
fill (a dot product each, summed by the lanes) and read (a weighted sum of
rows), so it lives in shared memory with a copy per warp (FreeTensor's
multiplex buffers), and the warp's steps are ordered by __syncwarp inside
that loop: the lanes' sums, lane 0 scaling them, the lanes reading them.
10 rows in blocks of 4 warps, 40 features on 32 lanes: neither divides."""
import teml
@teml.transform
def f(q: teml.Var[(10, 40), "float32"], k: teml.Var[(13, 40), "float32"], y: teml.Var[(10, 40), "float32", "output"]):
    #! label: Lrow
    for i in range(10):
        score = teml.zeros((4,), "float32")
        #! label: Lwin
        for t in range(4):
            #! label: Ldot
            for p in range(40):
                score[t] += q[i, p] * k[i + t, p]
        for t in range(4):
            score[t] = score[t] * 0.5
        #! label: Lsum
        for t in range(4):
            #! label: Lacc
            for p in range(40):
                y[i, p] += score[t] * k[i + t, p]
@teml.schedule(f)
def g(s):
    blocks, warps = s.split("Lrow", 4)
    s.parallelize(blocks, "blockIdx.x")
    s.parallelize(warps, "threadIdx.y")
    chunks, lanes = s.split("Ldot", 32)
    s.reorder([lanes, chunks])
    s.parallelize(lanes, "threadIdx.x")
    s.cache_reduce(lanes, "score")
    chunks, lanes = s.split("Lacc", 32)
    s.reorder([lanes, chunks])
    s.parallelize(lanes, "threadIdx.x")
