// The helpers every CUDA C file of teml starts with: integer and float
// helpers of the shared C expressions (codegen/c_expr), atomic updates by
// compare-and-swap where the GPU has no instruction, and the record of the
// first failed run-time check. Compiles with nvcc and with NVRTC (no
// system headers there).
#pragma once
#include <string>

namespace teml::codegen {

std::string cudaPrelude();

}  // namespace teml::codegen
