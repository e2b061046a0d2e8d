// A branch whose body overwrites what its own condition read (`if y[i] >
// 0: y[i] = y[i] * x[i] - 1`): the backward pass decides the branch before
// it puts the body's overwritten values back, so it would test the new
// values and differentiate the wrong branch. Such a condition is computed
// into a local bool first (`var y.cond: bool[]` around the branch), which
// the gradient stage keeps like any local whose reads are overwritten
// afterwards: in a tape the forward pass fills (autodiff/tapes).
#pragma once
#include <set>
#include <string>

#include "ir/program.hpp"

namespace teml::autodiff {

// `names` holds every name in use; the locals' are added.
ir::Program conditionsAsLocals(const ir::Program& p, std::set<std::string>& names);

}  // namespace teml::autodiff
