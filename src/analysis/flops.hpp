// Floating-point operations a program performs (for GFLOP/s): each arithmetic
// operation on numbers in a statement, plus one for a reduction's update,
// times the number of times the statement runs.
#pragma once
#include "ir/program.hpp"

namespace teml::analysis {

double countFlops(const ir::Program& program);
double countFlops(const ir::StmtP& nest);
// The same, for a model's estimate: a loop whose bounds are loaded from
// data (a CSR row) is counted, over all the times it runs, as many
// iterations as the extent of a dimension its iterator subscripts alone (the
// nonzeros: `col[p]`), split evenly among them; countFlops counts it as
// none, not knowing the data.
double estimatedFlops(const ir::Program& program);

}  // namespace teml::analysis
