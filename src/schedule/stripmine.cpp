#include "ir/mutator.hpp"
#include "schedule/chunked_loop.hpp"
#include "schedule/nest_path.hpp"
#include "schedule/schedule_error.hpp"
#include "schedule/transforms.hpp"

namespace teml::schedule {

using namespace ir;

StmtP stripmine(const StmtP& nest, int r, int64_t v) {
  if (v < 1) throw ScheduleError("stripmine: the factor must be positive, not " + std::to_string(v));
  return chunkedLoop(nest, r, "stripmine", [&](const ExprP& extent) {
    return Chunks{intConst(v), floorDiv(add(extent, intConst(v - 1)), intConst(v))};  // ceil(extent / v) blocks
  });
}

}  // namespace teml::schedule
