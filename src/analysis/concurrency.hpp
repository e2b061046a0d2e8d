// Can the iterations of one loop run at the same time (OpenMP threads or SIMD
// lanes) without a race? A conservative test on affine subscripts: two
// accesses to a tensor from different iterations are independent when some
// dimension separates them. Reductions that may meet across iterations are
// kept correct by a private accumulator (target invariant in the loop) or an
// atomic update (threads only).
#pragma once
#include <map>
#include <set>
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

// `simd`: lanes instead of threads (no atomics available). `apart`: tensors
// known (from isl) never to be touched at one element by two iterations,
// whatever the affine test sees.
ConcurrencyReport analyzeConcurrentLoop(const ir::For& loop, bool simd, const std::set<std::string>& apart = {});

// The shared tensors the loop's body only reduces into, by one operator
// (the candidates for a private copy or atomic updates).
std::set<std::string> tensorsOnlyReduced(const ir::For& loop);
// The shared tensors of which the affine test cannot tell that two
// iterations never touch one element with a write.
std::set<std::string> tensorsMet(const ir::For& loop);

}  // namespace teml::analysis
