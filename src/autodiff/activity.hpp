// Which tensors carry a gradient: those that depend on a tensor of `wrt`
// (through the values of the statements that write them) and that some
// tensor of `of` depends on, plus `wrt` and `of` themselves. Integer and
// boolean tensors never do. Tensors defined inside the program (scoped,
// loop-local) are included by name.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "ir/program.hpp"

namespace teml::autodiff {

std::set<std::string> activeTensors(const ir::Program& p, const std::vector<std::string>& wrt,
                                    const std::vector<std::string>& of);

}  // namespace teml::autodiff
