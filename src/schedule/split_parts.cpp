// FreeTensor's split(L, nparts=n): an outer loop of exactly n iterations,
// each running one contiguous chunk of ceil(extent / n) iterations (the last
// chunks shorter or empty). Where the extent is known only at run time (a
// CSR row), the chunk is computed there: a loop bound to n GPU threads
// then shares any row among them.
#include "ir/fresh_name.hpp"
#include "schedule/nest_path.hpp"
#include "schedule/schedule_error.hpp"
#include "schedule/transforms.hpp"

namespace teml::schedule {

using namespace ir;

StmtP splitParts(const StmtP& nest, int r, int64_t parts) {
  auto chain = loopsToLevel(nest, r, "split");
  const For& f = *chain[r - 1];
  if (parts < 1) throw ScheduleError("split: nparts must be positive, not " + std::to_string(parts));
  if (f.step != 1)
    throw ScheduleError("split: loop '" + f.var + "' has step " + std::to_string(f.step) + "; only unit-step loops can be split");
  auto taken = namesIn(nest);
  std::string outer = freshName(f.var + "_o", taken);
  ExprP extent = max(sub(f.end, f.begin), intConst(0));
  ExprP chunk = floorDiv(add(extent, intConst(parts - 1)), intConst(parts));
  ExprP start = add(f.begin, mul(chunk, var(outer)));
  int64_t n;
  bool divides = constValue(extent, &n) && n % parts == 0;
  ExprP stop = add(start, chunk);
  StmtP inner = makeFor(f.id, f.var, start, divides ? stop : min(stop, f.end), 1, f.loopKind, loopBody(f), localsOf(f));
  StmtP outerLoop = makeFor(freshLoopId(nest, f.id + ".o"), outer, intConst(0), intConst(parts), 1, LoopKind{}, inner);
  return replaceLevel(chain, r, outerLoop);
}

}  // namespace teml::schedule
