// Reductions that several threads or blocks of a kernel apply to one
// element: atomic updates (atomicAdd, or compare-and-swap where the GPU
// has no instruction). The dependence analysis that admitted each GPU loop
// says which reductions meet across its iterations; gpu_reduction_trees
// then sums those all threads of a block share in shared memory.
#include <set>

#include "analysis/concurrency_with_isl.hpp"
#include "diag/diagnostics.hpp"
#include "ir/mutator.hpp"
#include "lowering/cuda/cuda_passes.hpp"

namespace teml::lowering {

using namespace ir;

namespace {

class MarkAtomic : public Mutator {
 public:
  explicit MarkAtomic(const std::set<const Stmt*>& atomic) : atomic_(atomic) {}

 protected:
  StmtP mutateReduce(const StmtP& s) override {
    auto& r = s->as<Reduce>();
    if (r.atomic || !atomic_.count(s.get())) return s;
    return std::make_shared<Reduce>(r.op, r.tensor, r.indices, r.value, r.loc, r.tag, true, r.id, r.made);
  }

 private:
  const std::set<const Stmt*>& atomic_;
};

}  // namespace

StmtP atomicGpuReductions(const StmtP& nest, const Program&, const target::Target&) {
  std::set<const Stmt*> atomic;
  forEachStmt(nest, [&](const StmtP& s) {
    if (s->kind != StmtKind::For) return;
    auto& f = s->as<For>();
    if (!f.loopKind.gpu() || f.loopKind.independent) return;
    auto c = analysis::concurrencyOf(nest, f, false, true);
    if (!c.report.ok) throw InternalError("lowering: " + c.report.reason);
    for (auto& [r, strategy] : c.report.reduces)
      if (strategy != analysis::ReduceStrategy::Plain) atomic.insert(r);
  });
  return atomic.empty() ? nest : MarkAtomic(atomic).mutate(nest);
}

}  // namespace teml::lowering
