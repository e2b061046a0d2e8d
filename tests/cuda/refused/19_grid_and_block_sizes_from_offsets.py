"""Ports FreeTensor's test_gpu.py::test_dynamic_thread_dim_2: a loop over offset[i] .. offset[i + 1] split by 4 onto blockIdx.y and threadIdx.y inside a loop of the host.

FreeTensor: accepts: offset is byvalue; blockIdx.y runs ceil((offset[i + 1] - offset[i]) / 4) blocks
and threadIdx.y min(offset[i + 1] - offset[i], 4) threads (checks the lowered AST only). 6 x 16 for
FreeTensor's 27 x 256.
teml: 19_grid_and_block_sizes_from_offsets.py:18:9: error: the bounds of loop 'a_o', bound to blockIdx.y, read tensors: a grid's size is fixed when the kernel starts
Case: not one of the issue's listed cases: a grid (and block) size the host reads at run time
(byvalue).
"""
import teml
@teml.transform
def f(x: teml.Var[(6, 16), "float32"], offset: teml.Var[(7,), "int32"], y: teml.Var[(16,), "float32", "output"]):
    #! label: Li
    for i in range(6):
        cur_start = offset[i]
        cur_end = offset[i + 1]
        #! label: La
        for a in range(cur_start, cur_end):
            #! label: Loc
            for oc in range(16):
                y[oc % 2] += x[i, oc]
@teml.schedule(f)
def g(s):
    by, la = s.split("La", 4)
    bx, loc = s.split("Loc", 4)
    s.reorder([by, bx, la, loc])
    s.parallelize(by, "blockIdx.y")
    s.parallelize(bx, "blockIdx.x")
    s.parallelize(la, "threadIdx.y")
    s.parallelize(loc, "threadIdx.x")
