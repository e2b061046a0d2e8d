"""A matrix product C = A B for the CUDA target (docs/cuda.md): blocks of
64 x 64 elements of C, 16 x 16 threads each computing a 4 x 4 patch, the
tiles of A and B a step of k needs cached in shared memory and copied by
the block's threads.

    teml run examples/cuda/mm.py --target cuda --set N=1024 --random 1 --verify
    teml emit examples/cuda/mm.py --target cuda --set N=1024"""
from __future__ import annotations

import teml


@teml.transform
def mm(a: teml.Var[(N, N), "float32"], b: teml.Var[(N, N), "float32"], c: teml.Var[(N, N), "float32", "output"]):
    #! label: Li
    for i in range(N):
        #! label: Lj
        for j in range(N):
            #! label: Lk
            for k in range(N):
                c[i, j] += a[i, k] * b[k, j]


@teml.schedule(mm)
def tiled(s):
    io, i = s.split("Li", 64)
    ii, i4 = s.split(i, 4)
    jo, j = s.split("Lj", 64)
    ji, j4 = s.split(j, 4)
    ko, k = s.split("Lk", 16)
    s.reorder([io, jo, ko, ii, ji, i4, j4, k])
    s.cache(ko, "a", "gpu/shared")
    s.cache(ko, "b", "gpu/shared")
    s.parallelize(io, "blockIdx.y")
    s.parallelize(jo, "blockIdx.x")
    s.parallelize(ii, "threadIdx.y")
    s.parallelize(ji, "threadIdx.x")
