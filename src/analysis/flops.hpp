// Floating-point operations a program performs (for GFLOP/s): each arithmetic
// operation on numbers in a statement, plus one for a reduction's update,
// times the number of times the statement runs.
#pragma once
#include "ir/program.hpp"

namespace teml::analysis {

double countFlops(const ir::Program& program);
double countFlops(const ir::StmtP& nest);

}  // namespace teml::analysis
