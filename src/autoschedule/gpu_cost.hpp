// A cost model of a GPU for the automatic GPU schedule: the seconds a
// nest's kernels take on the target's card, estimated from the warp
// instructions they issue and the bytes their warps move, without a
// device. The automatic schedule ranks its candidates with it where no
// card can time them.
//
// Per kernel (as gpu_kernels makes them from the scheduled nest): every
// statement's work counts once per execution by each warp that runs it
// (a serial loop multiplies by its trips, a loop bound to threadIdx keeps
// the warps its iterations fill, a guard one warp); its operations are
// its expression's nodes (exp, log, division and the like count 4). Each
// access to a tensor moves 32-byte sectors per warp: 1 where every lane
// reads one element, one element's bytes where neighbouring lanes read
// neighbouring elements or each lane walks its own row in a serial loop
// (the sector serves the lane's next iterations from L1), else 32. A
// loop whose bounds read data (a CSR row) runs as many iterations as the
// tensor it indexes has elements per row of the tensor its bounds read.
// Time is the larger of instructions over the card's issue rate (four
// schedulers per SM) and the bytes over the bandwidth they come at (a
// tensor that fits in L2 comes from DRAM once, every byte through L2),
// scaled up where the grid has too few warps to hide latency, plus a
// launch's overhead per kernel.
#pragma once
#include <functional>

#include "ir/program.hpp"
#include "target/target.hpp"

namespace teml::autoschedule {

struct GpuCost {
  double warpInstructions = 0;
  double bytes = 0;
  int kernels = 0;
  double seconds = 0;
};

// The estimate for `nest` scheduled on the GPU; `tensor` gives the
// program's tensors' shapes (null for a name it does not know).
GpuCost gpuCost(const ir::StmtP& nest, const std::function<const ir::TensorDecl*(const std::string&)>& tensor,
                const target::Target& target);

}  // namespace teml::autoschedule
