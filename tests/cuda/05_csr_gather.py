"""CSR rows to blocks, features to threads (a gather)."""
import teml
@teml.transform
def f(ptr: teml.Var[(11,), "int32"], idx: teml.Var[(40,), "int32"], x: teml.Var[(10, 32), "float32"],
      y: teml.Var[(10, 32), "float32", "output"]):
    #! label: Lrow
    for i in range(10):
        for k in range(ptr[i], ptr[i + 1]):
            #! label: Lc
            for c in range(32):
                y[i, c] += x[idx[k], c]
@teml.schedule(f)
def g(s):
    s.parallelize("Lrow", "blockIdx.x")
    s.parallelize("Lc", "threadIdx.x")
