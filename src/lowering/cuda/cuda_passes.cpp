#include "lowering/cuda/cuda_passes.hpp"

#include "ir/mutator.hpp"

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

bool hasLoop(const ir::StmtP& s, bool (ir::LoopKind::*bound)() const) {
  bool found = false;
  ir::forEachStmt(s, [&](const ir::StmtP& t) {
    found = found || (t->kind == ir::StmtKind::For && (t->as<ir::For>().loopKind.*bound)());
  });
  return found;
}

}  // namespace teml::lowering
