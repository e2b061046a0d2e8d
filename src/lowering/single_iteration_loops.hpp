// A serial loop that separate_tail made and that runs exactly once (the
// remainder `for s_o in range(3, 4)`) becomes its body with the iterator replaced by
// its one value, so the loops inside get constant bounds: the vector
// planner then gives a short remainder masked vectors in registers
// (lowering/cpu/vector_plans) instead of leaving it to `#pragma omp simd`.
// Loops with local tensors or a reduction clause stay as they are, and so
// do other loops of one iteration (a cache's copy nest over a row of one:
// copy_plans recognizes the nest as written).
#pragma once
#include "ir/stmt.hpp"

namespace teml::lowering {

ir::StmtP inlineSingleIterationLoops(const ir::StmtP& nest);

}  // namespace teml::lowering
