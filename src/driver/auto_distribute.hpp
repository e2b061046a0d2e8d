// The automatic schedule under mpirun (docs/distributed.md): where the
// program was scheduled automatically and no loop is distributed, the
// outermost loop of each step of the program that `distribute` accepts is
// distributed, and kept so where the plan's predicted communication is small
// against the work each rank does.
#pragma once
#include <string>
#include <vector>

#include "ir/program.hpp"
#include "target/target.hpp"

namespace teml::driver {

// `scheduled` with the loops chosen distributed; `notes` says what was chosen and why (for -v).
ir::Program autoDistribute(const ir::Program& scheduled, const target::Target& target, const std::string& cacheDir,
                           std::vector<std::string>& notes);

}  // namespace teml::driver
