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
      {"gpu_launches", planLaunches},
  };
}

bool hasLoop(const ir::StmtP& s, bool (ir::LoopKind::*bound)() const) {
  bool found = false;
  ir::forEachStmt(s, [&](const ir::StmtP& t) {
    found = found || (t->kind == ir::StmtKind::For && (t->as<ir::For>().loopKind.*bound)());
  });
  return found;
}

int64_t mostIterations(const ir::For& f, bool* known) {
  std::vector<ir::ExprP> ends{f.end};
  if (f.end->kind == ir::ExprKind::Binary && f.end->as<ir::Binary>().op == (f.step > 0 ? ir::BinOp::Min : ir::BinOp::Max))
    ends = {f.end->as<ir::Binary>().a, f.end->as<ir::Binary>().b};
  *known = false;
  int64_t most = 0;
  for (auto& e : ends) {
    int64_t span = 0;
    if (!constValue(f.step > 0 ? sub(e, f.begin) : sub(f.begin, e), &span)) continue;
    int64_t step = f.step > 0 ? f.step : -f.step, n = span <= 0 ? 0 : (span + step - 1) / step;
    most = *known ? std::min(most, n) : n;
    *known = true;
  }
  return most;
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
