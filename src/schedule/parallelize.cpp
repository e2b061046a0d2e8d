#include "analysis/concurrency_with_isl.hpp"
#include "ir/mutator.hpp"
#include "ir/visitor.hpp"
#include "schedule/nest_path.hpp"
#include "schedule/schedule_error.hpp"
#include "schedule/transforms.hpp"

namespace teml::schedule {

using namespace ir;

namespace {
class ParallelInsideVector : public Visitor {
 public:
  explicit ParallelInsideVector(const std::string& what) : what_(what) {}
  using Visitor::visit;
  void visit(const ExprP&) override {}

 protected:
  void visitFor(const For& f) override {
    if (vectorLoop_ && f.loopKind.threads())
      throw ScheduleError(what_ + ": the parallel loop '" + f.var + "' would be inside the vectorized loop '" +
                          vectorLoop_->var + "'; SIMD lanes cannot start threads");
    const For* outer = vectorLoop_;
    if (f.loopKind.lanes()) vectorLoop_ = &f;
    Visitor::visitFor(f);
    vectorLoop_ = outer;
  }
  void visitLibCall(const LibCall&) override {}

 private:
  const std::string& what_;
  const For* vectorLoop_ = nullptr;
};
}  // namespace

void checkParallelNesting(const StmtP& nest, const std::string& what) { ParallelInsideVector(what).visit(nest); }

namespace {

StmtP markLoop(const StmtP& nest, int r, bool parallel, ThreadSchedule schedule = ThreadSchedule::Static) {
  const char* what = parallel ? "parallelize" : "vectorize";
  auto chain = loopsToLevel(nest, r, what);
  const For& f = *chain[r - 1];
  LoopKind kind = f.loopKind;
  kind.scope = LoopKind::join(kind.scope, parallel ? ParallelScope::Threads : ParallelScope::SimdLanes);
  if (parallel) kind.schedule = schedule;
  auto marked = std::make_shared<For>(f.id, f.var, f.begin, f.end, f.step, kind, f.body, f.made);
  // A loop that is both threaded and vectorized must be safe for SIMD lanes too.
  auto c = analysis::concurrencyOf(nest, *marked, kind.lanes(), false);
  if (!c.report.ok) throw ScheduleError(std::string(what) + ": " + c.report.reason, Refusal::Illegal);
  if (c.independent) {
    kind.independent = true;
    marked = std::make_shared<For>(f.id, f.var, f.begin, f.end, f.step, kind, f.body, f.made);
  }
  StmtP result = replaceLevel(chain, r, marked);
  checkParallelNesting(result, what);
  return result;
}

}  // namespace

StmtP parallelize(const StmtP& nest, int r, ThreadSchedule schedule) { return markLoop(nest, r, true, schedule); }
StmtP vectorize(const StmtP& nest, int r) { return markLoop(nest, r, false); }

}  // namespace teml::schedule
