// The reference interpreter of the loop IR: slow and obviously correct, the
// oracle of every differential test. Every access is bounds-checked; an
// out-of-bounds access is an internal error (checks must have refused it).
#pragma once
#include "ir/program.hpp"
#include "runtime/buffer.hpp"

namespace teml::interp {

void run(const ir::Program& program, runtime::BufferMap& buffers);
void runNest(const ir::StmtP& nest, const ir::Program& program, runtime::BufferMap& buffers);

}  // namespace teml::interp
