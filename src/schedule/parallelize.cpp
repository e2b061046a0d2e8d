#include "analysis/concurrency.hpp"
#include "schedule/nest_path.hpp"
#include "schedule/schedule_error.hpp"
#include "schedule/transforms.hpp"

namespace teml::schedule {

using namespace ir;

namespace {

StmtP markLoop(const StmtP& nest, int r, bool parallel) {
  const char* what = parallel ? "parallelize" : "vectorize";
  auto chain = loopsToLevel(nest, r, what);
  const For& f = *chain[r - 1];
  LoopKind kind = f.loopKind;
  (parallel ? kind.parallel : kind.vector) = true;
  auto marked = std::make_shared<For>(f.id, f.var, f.begin, f.end, f.step, kind, f.body);
  // A loop that is both threaded and vectorized must be safe for SIMD lanes too.
  auto report = analysis::analyzeConcurrentLoop(*marked, kind.vector);
  if (!report.ok) throw ScheduleError(std::string(what) + ": " + report.reason);
  return replaceLevel(chain, r, marked);
}

}  // namespace

StmtP parallelize(const StmtP& nest, int r) { return markLoop(nest, r, true); }
StmtP vectorize(const StmtP& nest, int r) { return markLoop(nest, r, false); }

}  // namespace teml::schedule
