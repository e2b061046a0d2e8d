// C code generation: one function per loop nest and an entry point
//   void teml_entry(void **buffers, int nthreads)
// taking one buffer per declared tensor, in declaration order.
#pragma once
#include <string>
#include <vector>

#include "ir/program.hpp"
#include "target/target.hpp"

namespace teml::codegen {

// `program` is lowered for `target` (lowering::lower): the emitter prints
// the decisions written in it.
std::string emitC(const ir::Program& program, const target::Target& target);
// Libraries the generated code calls (as linker flags): -lopenblas for BLAS calls.
std::vector<std::string> linkFlags(const ir::Program& program);

}  // namespace teml::codegen
