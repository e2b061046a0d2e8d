// A GPU runs loops in blocks and threads only: a loop scheduled for CPU
// threads or SIMD lanes is refused at the loop, naming the GPU scopes.
#include "diag/diagnostics.hpp"
#include "lowering/cuda/cuda_passes.hpp"
#include "ir/mutator.hpp"

namespace teml::lowering {

using namespace ir;

StmtP checkGpuScopes(const StmtP& nest, const Program&, const target::Target&) {
  forEachStmt(nest, [](const StmtP& s) {
    if (s->kind != StmtKind::For) return;
    auto& f = s->as<For>();
    if (f.loopKind.threads() || f.loopKind.lanes())
      throw UserError(f.made.loc, std::string("loop '") + f.var + "' runs on CPU " +
                                      (f.loopKind.threads() ? "threads" : "SIMD lanes") +
                                      ", which the cuda target does not have; bind it to \"blockIdx.x\", ..., "
                                      "\"threadIdx.z\" with parallelize, or leave it serial");
  });
  return nest;
}

}  // namespace teml::lowering
