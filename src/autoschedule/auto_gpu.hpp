// The automatic schedule for a CUDA target (FreeTensor's auto_parallelize
// for GPUs, by heuristics; no measuring without a device): each outermost
// loop becomes a kernel. The loops perfectly nested in it that write
// different elements each iteration are merged into it (blocks enough for
// every multiprocessor), its threads go to the loop inside whose index is
// the last subscript of the most accesses (neighbouring threads touch
// neighbouring elements: coalesced), the merged loop to blocks; failing
// that, the same without merging; then the (merged) loop split into blocks
// of 256 threads; else each of its iterations is a block of one thread.
// Each candidate is taken only when the dependence analysis admits its
// steps and the CUDA lowering its kernel.
#pragma once
#include "autoschedule/auto_state.hpp"

namespace teml::autoschedule {

void autoGpu(AutoState& state);

}  // namespace teml::autoschedule
