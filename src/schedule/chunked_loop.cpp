#include "schedule/chunked_loop.hpp"

#include "ir/fresh_name.hpp"
#include "ir/mutator.hpp"
#include "schedule/nest_path.hpp"
#include "schedule/schedule_error.hpp"

namespace teml::schedule {

using namespace ir;

StmtP chunkedLoop(const StmtP& nest, int r, const std::string& what,
                  const std::function<Chunks(const ExprP& extent)>& chunks) {
  auto chain = loopsToLevel(nest, r, what);
  const For& f = *chain[r - 1];
  if (f.step != 1)
    throw ScheduleError(what + ": loop '" + f.var + "' has step " + std::to_string(f.step) +
                        "; only unit-step loops can be split");
  auto taken = namesIn(nest);
  std::string outer = freshName(f.var + "_o", taken);
  ExprP extent = max(sub(f.end, f.begin), intConst(0));
  Chunks c = chunks(extent);
  ExprP start = add(f.begin, mul(c.size, var(outer)));
  ExprP stop = add(start, c.size);
  int64_t n, size, count;
  bool exact = constValue(extent, &n) && constValue(c.size, &size) && constValue(c.count, &count) && size * count == n;
  StmtP inner = makeFor(f.id, f.var, start, exact ? stop : min(stop, f.end), 1, f.loopKind, loopBody(f), localsOf(f));
  StmtP outerLoop = makeFor(freshLoopId(nest, f.id + ".o"), outer, intConst(0), c.count, 1, LoopKind{}, inner);
  return replaceLevel(chain, r, outerLoop);
}

}  // namespace teml::schedule
