#include <functional>

#include "analysis/concurrency.hpp"
#include "analysis/legality.hpp"
#include "ir/mutator.hpp"
#include "schedule/nest_path.hpp"
#include "schedule/schedule_error.hpp"
#include "schedule/transforms.hpp"

namespace teml::schedule {

using namespace ir;

void checkParallelNesting(const StmtP& nest, const std::string& what) {
  std::function<void(const StmtP&, const For*)> walk = [&](const StmtP& s, const For* vectorLoop) {
    switch (s->kind) {
      case StmtKind::For: {
        auto& f = static_cast<const For&>(*s);
        if (vectorLoop && f.loopKind.parallel)
          throw ScheduleError(what + ": the parallel loop '" + f.var + "' would be inside the vectorized loop '" +
                              vectorLoop->var + "'; SIMD lanes cannot start threads");
        walk(f.body, f.loopKind.vector ? &f : vectorLoop);
        break;
      }
      case StmtKind::Seq:
        for (auto& t : static_cast<const Seq&>(*s).stmts) walk(t, vectorLoop);
        break;
      case StmtKind::If: {
        auto& i = static_cast<const If&>(*s);
        walk(i.then, vectorLoop);
        if (i.otherwise) walk(i.otherwise, vectorLoop);
        break;
      }
      default: break;
    }
  };
  walk(nest, nullptr);
}

namespace {

StmtP markLoop(const StmtP& nest, int r, bool parallel, ThreadSchedule schedule = ThreadSchedule::Static) {
  const char* what = parallel ? "parallelize" : "vectorize";
  auto chain = loopsToLevel(nest, r, what);
  const For& f = *chain[r - 1];
  LoopKind kind = f.loopKind;
  (parallel ? kind.parallel : kind.vector) = true;
  if (parallel) kind.schedule = schedule;
  auto marked = std::make_shared<For>(f.id, f.var, f.begin, f.end, f.step, kind, f.body, f.locals);
  // A loop that is both threaded and vectorized must be safe for SIMD lanes too.
  auto report = analysis::analyzeConcurrentLoop(*marked, kind.vector);
  if (!report.ok) {
    // The affine test is conservative (it does not see through / and mod);
    // isl decides exactly whether iterations are independent.
    if (!analysis::loopIsIndependent(nest, f.id)) throw ScheduleError(std::string(what) + ": " + report.reason);
    kind.independent = true;
    marked = std::make_shared<For>(f.id, f.var, f.begin, f.end, f.step, kind, f.body, f.locals);
  }
  StmtP result = replaceLevel(chain, r, marked);
  checkParallelNesting(result, what);
  return result;
}

}  // namespace

StmtP parallelize(const StmtP& nest, int r, ThreadSchedule schedule) { return markLoop(nest, r, true, schedule); }
StmtP vectorize(const StmtP& nest, int r) { return markLoop(nest, r, false); }

}  // namespace teml::schedule
