// Can the iterations of one loop run at the same time (OpenMP threads or SIMD
// lanes) without a race? A conservative test on affine subscripts: two
// accesses to a tensor from different iterations are independent when some
// dimension separates them. Reductions that may meet across iterations are
// kept correct by a private accumulator (target invariant in the loop) or an
// atomic update (threads only).
#pragma once
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ir/stmt.hpp"

namespace teml::analysis {

enum class ReduceStrategy { Plain, Accumulator, Atomic };

struct ConcurrencyReport {
  bool ok = true;
  std::string reason;  // why not, naming the tensor and accesses
  // For every Reduce in the loop body, in program order (so that generated
  // code does not depend on where the nodes were allocated).
  std::vector<std::pair<const ir::Reduce*, ReduceStrategy>> reduces;
};

// `simd`: lanes instead of threads (no atomics available).
ConcurrencyReport analyzeConcurrentLoop(const ir::For& loop, bool simd);

}  // namespace teml::analysis
