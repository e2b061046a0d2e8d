// FreeTensor's split(L, nparts=n): an outer loop of exactly n iterations,
// each running one contiguous chunk of ceil(extent / n) iterations (the last
// chunks shorter or empty). Where the extent is known only at run time (a
// CSR row), the chunk is computed there: a loop bound to n GPU threads
// then shares any row among them.
#include "schedule/chunked_loop.hpp"
#include "schedule/schedule_error.hpp"
#include "schedule/transforms.hpp"

namespace teml::schedule {

using namespace ir;

StmtP splitParts(const StmtP& nest, int r, int64_t parts) {
  if (parts < 1) throw ScheduleError("split: nparts must be positive, not " + std::to_string(parts));
  return chunkedLoop(nest, r, "split", [&](const ExprP& extent) {
    return Chunks{floorDiv(add(extent, intConst(parts - 1)), intConst(parts)), intConst(parts)};
  });
}

}  // namespace teml::schedule
