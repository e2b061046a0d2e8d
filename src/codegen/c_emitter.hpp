// C code generation: one function per loop nest and an entry point
//   void teml_entry(void **buffers, int nthreads)
// taking one buffer per declared tensor, in declaration order.
#pragma once
#include <string>

#include "ir/program.hpp"

namespace teml::codegen {

std::string emitC(const ir::Program& program);

}  // namespace teml::codegen
