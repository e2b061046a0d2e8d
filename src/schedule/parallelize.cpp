#include "analysis/concurrency_with_isl.hpp"
#include "ir/distribution.hpp"
#include "ir/mutator.hpp"
#include "ir/visitor.hpp"
#include "schedule/nest_path.hpp"
#include "schedule/schedule_error.hpp"
#include "schedule/transforms.hpp"

namespace teml::schedule {

using namespace ir;

namespace {
// How parallel loops may nest: no threads inside SIMD lanes; on a GPU,
// threads inside blocks, never blocks inside threads, each of blockIdx.x,
// ..., threadIdx.z bound once on a path, and no CPU threads or lanes
// around or inside a kernel.
class ParallelNesting : public Visitor {
 public:
  explicit ParallelNesting(const std::string& what) : what_(what) {}
  using Visitor::visit;
  void visit(const ExprP&) override {}

 protected:
  void visitFor(const For& f) override {
    const LoopKind& k = f.loopKind;
    if (vectorLoop_ && k.threads())
      throw ScheduleError(what_ + ": the parallel loop '" + f.var + "' would be inside the vectorized loop '" +
                          vectorLoop_->var + "'; SIMD lanes cannot start threads");
    if (k.gpu() && cpuLoop_)
      refuse("the loop '" + f.var + "' bound to " + parallelScopeName(k.scope) + " is inside '" + cpuLoop_->var +
             "', which runs on CPU threads or lanes");
    if ((k.threads() || k.lanes()) && !gpuLoops_.empty())
      refuse("the loop '" + f.var + "' runs on CPU threads or lanes inside '" + gpuLoops_.back()->var + "', bound to " +
             parallelScopeName(gpuLoops_.back()->loopKind.scope));
    for (const For* g : gpuLoops_) {
      if (g->loopKind.scope == k.scope)
        refuse("the loops '" + g->var + "' and '" + f.var + "' are both bound to " + parallelScopeName(k.scope) +
               " and one is inside the other");
      if (k.gpuBlocks() && g->loopKind.gpuThreads())
        refuse("the loop '" + f.var + "' bound to " + parallelScopeName(k.scope) + " is inside '" + g->var +
               "', bound to " + parallelScopeName(g->loopKind.scope) + "; blocks hold threads, not the other way round");
    }
    const For* outerVector = vectorLoop_;
    const For* outerCpu = cpuLoop_;
    if (k.lanes()) vectorLoop_ = &f;
    if (k.threads() || k.lanes()) cpuLoop_ = &f;
    if (k.gpu()) gpuLoops_.push_back(&f);
    Visitor::visitFor(f);
    if (k.gpu()) gpuLoops_.pop_back();
    vectorLoop_ = outerVector;
    cpuLoop_ = outerCpu;
  }
  void visitLibCall(const LibCall&) override {}

 private:
  [[noreturn]] void refuse(const std::string& why) { throw ScheduleError(what_ + ": " + why); }
  const std::string& what_;
  const For* vectorLoop_ = nullptr;
  const For* cpuLoop_ = nullptr;
  std::vector<const For*> gpuLoops_;
};
}  // namespace

void checkParallelNesting(const StmtP& nest, const std::string& what) { ParallelNesting(what).visit(nest); }

namespace {

// Binds level r to `scope` (CPU threads, SIMD lanes, a GPU's blocks or threads).
StmtP markLoop(const StmtP& nest, int r, ParallelScope scope, ThreadSchedule schedule = ThreadSchedule::Static) {
  const char* what = scope == ParallelScope::SimdLanes ? "vectorize" : "parallelize";
  bool parallel = scope != ParallelScope::SimdLanes;
  auto chain = loopsToLevel(nest, r, what);
  const For& f = *chain[r - 1];
  LoopKind kind = f.loopKind;
  bool gpu = LoopKind{scope}.gpu();
  if ((gpu && kind.concurrent()) || (!gpu && kind.gpu()))
    throw ScheduleError(std::string(what) + ": the loop '" + f.var + "' is already bound to " +
                        parallelScopeName(kind.scope));
  kind.scope = gpu ? scope : LoopKind::join(kind.scope, scope);
  if (parallel && !gpu) kind.schedule = schedule;
  auto marked = std::make_shared<For>(f.id, f.var, f.begin, f.end, f.step, kind, f.body, f.made);
  // A loop that is both threaded and vectorized must be safe for SIMD lanes too.
  auto c = analysis::concurrencyOf(nest, *marked, kind.lanes(), false);
  if (!c.report.ok) throw ScheduleError(std::string(what) + ": " + c.report.reason, Refusal::Illegal);
  if (c.independent || !c.apart.empty()) {
    kind.independent = kind.independent || c.independent;
    if (!c.apart.empty()) kind.apart = c.apart;
    marked = std::make_shared<For>(f.id, f.var, f.begin, f.end, f.step, kind, f.body, f.made);
  }
  StmtP result = replaceLevel(chain, r, marked);
  checkParallelNesting(result, what);
  return result;
}

}  // namespace

namespace {
// Where distributed loops sit: one of a nest, or two, the inner one the
// whole body of the outer one with bounds that do not depend on it (a
// rectangle of blocks, over a grid of ranks).
class DistributedNesting : public Visitor {
 protected:
  void visitFor(const For& f) override {
    if (!f.loopKind.distributed) return Visitor::visitFor(f);
    if (!around_.empty()) {
      const For& outer = *around_.back();
      bool grid = around_.size() == 1 && wholeBodyLoop(outer) == &f && !usesVar(f.begin, outer.var) &&
                  !usesVar(f.end, outer.var);
      if (!grid)
        throw ScheduleError("distribute: the loop '" + f.var + "' is inside '" + outer.var +
                            "', which is distributed already; the ranks split one loop of a nest, or two where the "
                            "inner one is the whole body of the outer one and its bounds do not depend on it");
    }
    around_.push_back(&f);
    Visitor::visitFor(f);
    around_.pop_back();
  }

 private:
  std::vector<const For*> around_;
};
}  // namespace

void checkDistributedNesting(const StmtP& top) { DistributedNesting().visit(top); }

StmtP distribute(const StmtP& nest, int r) {
  auto chain = loopsToLevel(nest, r, "distribute");
  const For& f = *chain[r - 1];
  if (f.loopKind.distributed) throw ScheduleError("distribute: the loop '" + f.var + "' is distributed already");
  for (int level = 1; level < r; ++level) {
    const For& around = *chain[level - 1];
    if (around.loopKind.gpu() || around.loopKind.threads() || around.loopKind.lanes())
      throw ScheduleError("distribute: the loop '" + f.var + "' is inside '" + around.var + "', bound to " +
                          parallelScopeName(around.loopKind.scope) + "; the ranks split a loop outside threads");
  }
  if (f.loopKind.gpu() || f.loopKind.lanes())
    throw ScheduleError("distribute: the loop '" + f.var + "' is bound to " + parallelScopeName(f.loopKind.scope) +
                        "; distribute the loop around it");
  // The same legality as parallelize: independent iterations, or ones that
  // meet only in reductions (combined across ranks).
  LoopKind kind = f.loopKind;
  kind.distributed = true;
  auto marked = std::make_shared<For>(f.id, f.var, f.begin, f.end, f.step, kind, f.body, f.made);
  auto c = analysis::concurrencyOf(nest, *marked, false, false);
  if (!c.report.ok) throw ScheduleError("distribute: " + c.report.reason, Refusal::Illegal);
  return replaceLevel(chain, r, marked);
}

StmtP parallelize(const StmtP& nest, int r, ThreadSchedule schedule) {
  return markLoop(nest, r, ParallelScope::Threads, schedule);
}
StmtP parallelizeOnGpu(const StmtP& nest, int r, ParallelScope scope) { return markLoop(nest, r, scope); }
StmtP vectorize(const StmtP& nest, int r) { return markLoop(nest, r, ParallelScope::SimdLanes); }

}  // namespace teml::schedule
