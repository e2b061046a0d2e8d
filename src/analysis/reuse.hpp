// How often a program reads each element of a tensor as a value, on average:
// its loads over every execution of the statements (executions.hpp's
// estimate), per element. A matrix product reads each element of its
// operands once per row or column of the other; a sum reads each element
// once. Loads in subscripts (an embedding bag's row numbers) do not count:
// they are scalar reads that pick an element, whatever the array's alignment;
// nor do loads whose last subscript is read from data (SpMV's x[col[k]]),
// scalar reads too.
#pragma once
#include <string>

#include "ir/program.hpp"

namespace teml::analysis {

double estimatedReadsPerElement(const ir::Program& program, const std::string& tensor);

}  // namespace teml::analysis
