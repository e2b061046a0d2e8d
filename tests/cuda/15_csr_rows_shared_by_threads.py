"""CSR rows shared by a block's threads (split(nparts=32)), as GAT's
in-edges: a max tree, a sum tree, and each thread's share of a weighted row
summed in registers (cache_reduce of a local row) and added to the block's
once; rows of 0, 1, 5, 31, 32, 33 and 70 entries."""
import teml
@teml.transform
def f(rowptr: teml.Var[(11,), "int32"], col: teml.Var[(230,), "int32"], s: teml.Var[(10,), "float32"],
      x: teml.Var[(10, 32), "float32"], y: teml.Var[(10, 32), "float32", "output"]):
    #! label: Lrow
    for i in range(10):
        top = teml.full((), -float("inf"), "float32")
        #! label: Lmax
        for k in range(rowptr[i], rowptr[i + 1]):
            top[()] = max(top, s[col[k]])
        total = teml.zeros((), "float32")
        acc = teml.zeros((32,), "float32")
        #! label: Lsum
        for k in range(rowptr[i], rowptr[i + 1]):
            w = teml.exp(s[col[k]] - top)
            total[()] += w
            acc[:] += w * x[col[k]]
        if rowptr[i] < rowptr[i + 1]:
            #! label: Lout
            y[i] = acc / total
@teml.schedule(f)
def g(s):
    s.parallelize("Lrow", "blockIdx.x")
    lanes, _ = s.split("Lmax", nparts=32)
    s.parallelize(lanes, "threadIdx.x")
    lanes, _ = s.split("Lsum", nparts=32)
    s.parallelize(lanes, "threadIdx.x")
    s.cache_reduce(lanes, "acc")
    s.parallelize("Lout", "threadIdx.x")
