// Which grid of ranks a program with two distributed loops in a nest runs on
// when `--ranks-grid` does not say (docs/distributed.md, "Grids of ranks"):
// the plan is made for every rows x cols = ranks, and the one whose
// exchanges the model (traffic.hpp) predicts the shortest is kept; on a tie,
// the most even split (ir::rankGrid).
#pragma once
#include "ir/program.hpp"

namespace teml::lowering {

// planExchanges on the grid `gridRows` names, or, with 0, on the cheapest.
ir::Program planExchangesOnAGrid(const ir::Program& lowered, int ranks, int gridRows);

}  // namespace teml::lowering
