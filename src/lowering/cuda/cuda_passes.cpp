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

ir::StmtP eachKernel(const ir::StmtP& nest, const std::function<ir::StmtP(const ir::For& kernel)>& rewrite) {
  struct Kernels : ir::Mutator {
    const std::function<ir::StmtP(const ir::For&)>& rewrite;
    explicit Kernels(const std::function<ir::StmtP(const ir::For&)>& r) : rewrite(r) {}
    ir::StmtP mutateFor(const ir::StmtP& s) override {
      auto& f = s->as<ir::For>();
      return f.loopKind.kernel.name.empty() ? Mutator::mutateFor(s) : rewrite(f);
    }
  };
  return Kernels(rewrite).mutate(nest);
}

}  // namespace teml::lowering
