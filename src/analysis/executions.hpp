// How many times a program's statements run, each weighted: the walk
// behind a program's flops (flops.hpp) and the loads of a tensor (reuse.hpp).
// A loop whose work is the same in every iteration is counted once and
// multiplied by its trips; one whose work varies is counted iteration by
// iteration up to a budget (about a million in all), then at its middle
// iteration. A branch on data counts half of each arm.
#pragma once
#include <functional>

#include "ir/program.hpp"

namespace teml::analysis {

// A store's or a reduction's weight: what one execution of it counts.
using StatementWeight = std::function<double(const ir::Stmt&)>;

// Sum over the stores and reductions of `nest` of weight x executions;
// loops whose bounds are loaded from data count as no iterations.
double countExecutions(const ir::StmtP& nest, const StatementWeight& weight);
// The same over a program's nests, for a model's estimate: a loop whose
// bounds are loaded from data (a CSR row) is counted, over all the times it
// runs, as many iterations as the extent of a dimension its iterator
// subscripts alone (the nonzeros: `col[p]`), split evenly among them.
double estimatedExecutions(const ir::Program& program, const StatementWeight& weight);

}  // namespace teml::analysis
