#include "ir/mutator.hpp"
#include "schedule/nest_path.hpp"
#include "schedule/schedule_error.hpp"
#include "schedule/transforms.hpp"

namespace teml::schedule {

using namespace ir;

StmtP stripmine(const StmtP& nest, int r, int64_t v) {
  auto chain = loopsToLevel(nest, r, "stripmine");
  const For& f = *chain[r - 1];
  if (v < 1) throw ScheduleError("stripmine: the factor must be positive, not " + std::to_string(v));
  if (f.step != 1)
    throw ScheduleError("stripmine: loop '" + f.var + "' has step " + std::to_string(f.step) +
                        "; only unit-step loops can be strip-mined");
  auto taken = namesIn(nest);
  std::string outer = freshName(f.var + "_o", taken);
  ExprP extent = sub(f.end, f.begin);
  // Number of blocks: ceil(extent / v), never negative.
  ExprP blocks = floorDiv(add(max(extent, intConst(0)), intConst(v - 1)), intConst(v));
  ExprP start = add(f.begin, mul(intConst(v), var(outer)));
  ExprP stop = add(start, intConst(v));
  int64_t n;
  bool divides = constValue(extent, &n) && n % v == 0;
  ExprP innerEnd = divides ? stop : min(stop, f.end);
  StmtP inner = makeFor(f.id, f.var, start, innerEnd, 1, f.loopKind, loopBody(f), localsOf(f));
  StmtP outerLoop = makeFor(freshLoopId(nest, f.id + ".o"), outer, intConst(0), blocks, 1, LoopKind{}, inner);
  return replaceLevel(chain, r, outerLoop);
}

}  // namespace teml::schedule
