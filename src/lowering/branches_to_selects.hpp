// Branches that only choose a value (if-conversion):
//   if c: x[I] = a            x[I] = select(c, a, b)
//   else: x[I] = b      ->
// and the same for two reductions of one kind into one element (a backward
// pass's adjoints), an `elif` chain from the inside out. Both values are
// then computed, so only values that are safe to compute in either case are
// taken: no index that data decide (the branch may guard it) and no integer
// division. A pixel loop of SoftRas as its users write it (the distance to
// a segment chosen in if/elif/else, the sign of the result by `if inside`)
// then runs in SIMD lanes.
#pragma once
#include "ir/stmt.hpp"

namespace teml::lowering {

ir::StmtP branchesToSelects(const ir::StmtP& nest);

}  // namespace teml::lowering
