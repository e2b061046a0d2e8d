// Lowering for several MPI ranks (docs/distributed.md). The program is a
// sequence of steps (the statements at its top level, inside the tensors a
// nest defines); a distributed loop is a step whose iterations the ranks
// split in contiguous blocks, every other step runs whole in every rank (a
// small one in the one rank that holds what it touches).
// From the elements each rank's instances read and write (isl,
// analysis/element_sets), this pass tracks which elements are up to date
// where, and writes before each step the exchanges that bring a rank what
// it reads and does not hold (halos, broadcasts, gathers), and around a
// step whose ranks reduce into the same elements a start (other ranks at
// the identity) and the combination (MPI_Allreduce). It records in
// Program::distribution what each rank keeps and writes out.
#pragma once
#include "ir/program.hpp"

namespace teml::lowering {

// `lowered` unchanged for one rank. A nest with two distributed loops runs
// on a grid of ranks, `gridRows` rows (0: ir::rankGrid's choice). Throws
// UserError at the distributed loop where the plan cannot describe or
// carry what it moves.
ir::Program planExchanges(const ir::Program& lowered, int ranks, int gridRows = 0);

// Each distributed loop's bounds become its rank's block (ir::kRankVariable).
ir::Program boundToRanks(const ir::Program& planned);

}  // namespace teml::lowering
