#include "lowering/cuda/cuda_passes.hpp"

namespace teml::lowering {

std::vector<TargetPass> cudaPasses() {
  return {
      {"gpu_scopes", checkGpuScopes},
      {"gpu_kernels", makeKernels},
      {"gpu_reductions", atomicGpuReductions},
      {"gpu_memory_kinds", chooseGpuMemoryKinds},
      {"gpu_reduction_trees", sumInTrees},
      {"gpu_barriers", insertGuardsAndBarriers},
  };
}

}  // namespace teml::lowering
