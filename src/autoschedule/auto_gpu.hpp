// The automatic schedule for a CUDA target (FreeTensor's auto_use_lib /
// auto_parallelize for GPUs, by heuristics; no measuring without a device):
// each outermost loop becomes a kernel. Its threads go to the loop inside
// it whose index is the last subscript of the most accesses (neighbouring
// threads touch neighbouring elements: coalesced), the outer loop to
// blocks; where that schedule would need a barrier or is refused, the
// outer loop alone is split into blocks of 256 threads, else it runs one
// iteration per block. Each candidate is taken only when the dependence
// analysis admits its steps and the CUDA lowering its kernel.
#pragma once
#include "autoschedule/auto_state.hpp"

namespace teml::autoschedule {

void autoGpu(AutoState& state);

}  // namespace teml::autoschedule
