// Stable text form of the loop IR, used by `teml emit --emit ir|loops` and by tests.
#pragma once
#include <string>

#include "ir/program.hpp"

namespace teml::ir {

std::string toString(const ExprP& e);
// withIds: also print loop ids and source lines (the `ir` form); without them
// the `loops` form shows just the nest.
std::string toString(const StmtP& s, bool withIds = false, int indent = 0);
std::string toString(const Program& p, bool withIds = false);

}  // namespace teml::ir
