// A branch whose body overwrites what its own condition read (`if y[i] >
// 0: y[i] = y[i] * x[i] - 1`): the backward pass decides the branch before
// it puts the body's overwritten values back, so it would test the new
// values and differentiate the wrong branch. Such a condition is computed
// into a local bool first (`var y.cond: bool[]` around the branch), which
// the gradient stage keeps like any local whose reads are overwritten
// afterwards: in a tape the forward pass fills (autodiff/tapes). Named for
// what it brings about; the tape itself is the tapes stage's.
#pragma once
#include <set>
#include <string>

#include "ir/program.hpp"

namespace teml::autodiff {

// Only branches that write a tensor of `differentiated` (those carrying a
// gradient, and locals the backward pass may recompute). `names` holds
// every name in use; the new locals' are added. Throws UserError, at the
// branch, inside a loop whose trip count is not constant (no tape there).
ir::Program conditionsAsLocals(const ir::Program& p, const std::set<std::string>& differentiated,
                               std::set<std::string>& names);

}  // namespace teml::autodiff
