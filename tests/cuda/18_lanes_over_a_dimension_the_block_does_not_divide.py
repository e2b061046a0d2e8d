"""Every 32nd feature on a lane (a split's block moved above its block
loop) where 32 does not divide the 70 features: the last partial block is
guarded, and the lanes' sums meet in a tree."""
import teml
@teml.transform
def f(x: teml.Var[(6, 70), "float32"], w: teml.Var[(70,), "float32"], y: teml.Var[(6,), "float32", "output"]):
    #! label: Li
    for i in range(6):
        #! label: Lp
        for p in range(70):
            y[i] += x[i, p] * w[p]
@teml.schedule(f)
def g(s):
    s.parallelize("Li", "blockIdx.x")
    blocks, lanes = s.split("Lp", 32)
    s.reorder([lanes, blocks])
    s.parallelize(lanes, "threadIdx.x")
