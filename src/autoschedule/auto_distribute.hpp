// The automatic schedule under mpirun (docs/distributed.md): where the
// program was scheduled automatically and no loop is distributed, the
// outermost loop of each step of the program that `distribute` accepts is
// distributed, and kept so where the plan's predicted communication is small
// against the work each rank does.
#pragma once
#include <string>
#include <vector>

#include "ir/program.hpp"
#include "schedule/primitives.hpp"
#include "target/target.hpp"

namespace teml::autoschedule {

struct AutoDistribution {
  ir::Program program;                // `scheduled` with the chosen loops distributed
  std::vector<schedule::Step> steps;  // one `distribute` per chosen loop, for -v to print as a schedule
  std::vector<size_t> nests;          // the nest of each step
  std::string why;                    // the prediction that decided (-v)
};

AutoDistribution autoDistribute(const ir::Program& scheduled, const target::Target& target, const std::string& cacheDir);

// The TeML lines of an automatic schedule (`autoSteps`, ending in
// `codegen(a, b)`) with `d`'s steps before the codegen, each on the nest it
// distributes.
std::vector<std::string> withDistributeLines(std::vector<std::string> lines, const AutoDistribution& d);

}  // namespace teml::autoschedule
