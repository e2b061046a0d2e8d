// The register-block pass: every outermost perfect nest that is a
// contraction (auto_register_block.hpp) gets a register block, the one a
// measured search finds fastest when a Tuner is given, else the first
// candidate (mm's hand block, cache tiles when the column operand's block
// would not stay in cache).
#pragma once
#include "autoschedule/auto_state.hpp"

namespace teml::autoschedule {

void autoRegisterBlocks(AutoState& state);

}  // namespace teml::autoschedule
