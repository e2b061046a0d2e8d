// Whether a loop's iterations can run at the same time, and how its
// reductions stay right: the affine test (analysis/concurrency) first, as
// it is fast; where it fails, isl (analysis/legality), for the whole loop
// (no two iterations meet: nothing to do), or else for every tensor but
// those the loop only reduces into, whose reductions then get a private
// copy or atomic updates. That last case is a backward pass's node loop:
// the entries of its rows are apart (CSR rows), its scatter-adds into the
// neighbours' gradients meet.
#pragma once
#include <set>
#include <string>

#include "analysis/concurrency.hpp"
#include "ir/stmt.hpp"

namespace teml::analysis {

struct LoopConcurrency {
  ConcurrencyReport report;  // ok, or why not; each reduction's strategy
  bool independent = false;  // isl: no two iterations touch one element with a write
  std::set<std::string> apart;  // isl: tensors no two iterations share an element of (reductions aside)
};

// `loop` is the loop of that id in `nest` (it may be a marked copy).
// `avoidStrategies`: also ask isl when the affine test only needs
// reduction strategies, to do without them.
LoopConcurrency concurrencyOf(const ir::StmtP& nest, const ir::For& loop, bool simd, bool avoidStrategies,
                              const std::string& cacheDir = "");

}  // namespace teml::analysis
