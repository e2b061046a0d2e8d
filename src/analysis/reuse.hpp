// How often a program reads each element of a tensor, on average: its loads
// over every execution of the statements (executions.hpp's estimate), per
// element. A matrix product reads each element of its operands once per
// row or column of the other; a sum reads each element once.
#pragma once
#include <string>

#include "ir/program.hpp"

namespace teml::analysis {

double estimatedReadsPerElement(const ir::Program& program, const std::string& tensor);

}  // namespace teml::analysis
