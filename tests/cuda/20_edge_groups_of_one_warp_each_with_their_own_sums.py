"""A block of one warp per CSR row: 8 lanes over the features
(threadIdx.x) times 4 chunks of the row's entries (threadIdx.y). Each chunk
sums its weighted rows in its own copy of the row's sum, in shared memory
(multiplexed by threadIdx.y, filled by lane 0 of the chunk); the loop over
threadIdx.y runs once in every thread of the warp, so __syncwarp orders
its steps: the fill, the chunk's sums, the flush into the row's sum."""
import teml
@teml.transform
def f(rowptr: teml.Var[(11,), "int32"], col: teml.Var[(230,), "int32"], s: teml.Var[(10,), "float32"],
      x: teml.Var[(10, 8), "float32"], y: teml.Var[(10, 8), "float32", "output"]):
    #! label: Lrow
    for i in range(10):
        acc = teml.zeros((8,), "float32")
        #! label: Lsum
        for k in range(rowptr[i], rowptr[i + 1]):
            w = teml.exp(s[col[k]])
            #! label: Lc
            for c in range(8):
                acc[c] += w * x[col[k], c]
        #! label: Lout
        for c in range(8):
            y[i, c] = acc[c]
@teml.schedule(f)
def g(s):
    s.parallelize("Lrow", "blockIdx.x")
    chunks, _ = s.split("Lsum", nparts=4)
    s.parallelize(chunks, "threadIdx.y")
    s.cache_reduce(chunks, "acc")
    s.parallelize("Lc", "threadIdx.x")
    s.parallelize("Lout", "threadIdx.x")
