// Shapes of a vector access's indices that the vector planner
// (lowering/vector_plans) and the emitter that prints its plans agree on.
#pragma once
#include <string>
#include <vector>

#include "ir/expr.hpp"

namespace teml::ir {

// The last two indices are X / n and X mod n over a last dimension of extent
// n (what merging two loops produces): together they address element X of
// the last two dimensions taken as one.
bool mergedPair(const std::vector<ExprP>& indices, int64_t lastExtent, ExprP* x);

// Does the access vary with `var` (unit stride in its last dimension)?
bool variesWith(const std::vector<ExprP>& indices, const std::string& var);

}  // namespace teml::ir
