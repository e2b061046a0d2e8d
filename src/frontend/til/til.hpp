// The 2017 iterator language (.til, "Towards compositional and generative
// tensor optimizations"): arrays, iterators, tensor operations, build with
// named iterators, and transformations whose side effects act on those
// iterators. It is translated line by line into TeML (docs/til.md), so it
// shares TeML's checks, dependence analysis and code generation, and its
// diagnostics keep the .til line numbers.
#pragma once
#include <string>

namespace teml::til {

// TeML text with one line per .til line (and a final codegen line); throws
// UserError for what the language does not allow or teml does not support.
std::string tilToTeml(const std::string& source);

}  // namespace teml::til
