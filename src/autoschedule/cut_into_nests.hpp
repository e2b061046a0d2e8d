// A block loop cut (fission) until each statement of interest is a loop
// alone in a block loop of its own: the statements before it stay behind,
// those after it go to the next cut, and a tensor the body defines gets one
// element per iteration of the block where both sides use it. The blocks of
// attention's rows (auto_row_blocks) and of a window's tokens
// (auto_window_blocks) are cut so.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "autoschedule/auto_state.hpp"

namespace teml::autoschedule {

// `wanted(s, var)`: s, a statement of a block loop over `var`, must be
// alone. Returns the block loops that hold one such loop each, in program
// order (nullopt: a cut was refused, or such a statement is not a loop).
std::optional<std::vector<std::string>> cutIntoNests(
    AutoState& state, const std::string& block,
    const std::function<bool(const ir::StmtP&, const std::string&)>& wanted);

}  // namespace teml::autoschedule
