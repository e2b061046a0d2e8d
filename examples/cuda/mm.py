"""A matrix product C = A B for the CUDA target (docs/cuda.md): blocks of
TILE x TILE elements of C, (TILE / PATCH)^2 threads each computing a
PATCH x PATCH patch of C in registers (cache_reduce, the patch's loops
unrolled), the tiles of A and B a step of k needs cached in shared memory
and copied by all the block's threads in turn.

    teml run examples/cuda/mm.py --target cuda --set N=1024 --random 1 --verify
    teml emit examples/cuda/mm.py --target cuda --set N=1024"""
from __future__ import annotations

import teml

TILE = 64
PATCH = 4
STEP = 16


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
    io, i = s.split("Li", TILE)
    ii, i4 = s.split(i, PATCH)
    jo, j = s.split("Lj", TILE)
    ji, j4 = s.split(j, PATCH)
    ko, k = s.split("Lk", STEP)
    # a step of k outside the threads' loops (the block shares its tiles),
    # then per thread: k, and its patch innermost (PATCH values of A and of
    # B from shared memory feed PATCH^2 multiply-adds)
    s.reorder([io, jo, ko, ii, ji, k, i4, j4])
    s.cache(ko, "a", "gpu/shared")
    s.cache(ko, "b", "gpu/shared")
    s.cache_reduce(ji, "c")  # the thread's patch: gpu/local, in registers once unrolled
    s.unroll(j4)
    s.unroll(i4)
    s.parallelize(io, "blockIdx.y")
    s.parallelize(jo, "blockIdx.x")
    s.parallelize(ii, "threadIdx.y")
    s.parallelize(ji, "threadIdx.x")
