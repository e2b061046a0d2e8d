"""Ports FreeTensor's test_gpu.py::test_streams: a loop of the host on CUDA streams around two kernels.

FreeTensor: accepts: the loop over i runs its kernels on 4 CUDA streams (checks cudaStreamCreate in
the code and the result). 64 lanes for FreeTensor's 256.
teml: 20_loop_of_the_host_on_cuda_streams.py:21:25: error: parallelize on the cuda target binds the loop to "blockIdx.x", "blockIdx.y", "blockIdx.z", "threadIdx.x", "threadIdx.y" or "threadIdx.z", not 'cudaStream'
Case: not one of the issue's listed cases: teml has no cudaStream scope.
"""
import teml
@teml.transform
def f(x: teml.Var[(4, 64), "int32"], y: teml.Var[(4, 64), "int32", "output"]):
    #! label: L1
    for i in range(4):
        #! label: L2
        for j in range(64):
            y[i, j] = x[i, j] + 1
        #! label: L3
        for j in range(32):
            y[i, j * 2] *= 2
@teml.schedule(f)
def g(s):
    s.parallelize("L1", "cudaStream")
    s.parallelize("L2", "threadIdx.x")
    s.parallelize("L3", "threadIdx.x")
