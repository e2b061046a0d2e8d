// CUDA C of a program lowered for a CUDA target (lowering/cuda): one
// `__global__` function per kernel (the loops bound to blockIdx and
// threadIdx become the block's and the thread's indices), then the host
// code that launches them in order, as CUDA C++. The runtime
// (runtime/cuda) loads the kernels from a cubin and performs exactly that
// host code; `teml emit --target cuda` prints both.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "ir/program.hpp"
#include "target/target.hpp"

namespace teml::codegen {

// The device code alone (what nvcc -cubin or NVRTC compiles), the host
// code alone (C, what the system C compiler compiles and the runtime or the
// emulator runs), and the whole file with both (`teml emit`).
std::string emitCudaKernels(const ir::Program& lowered, const target::Target& target);
std::string emitCudaHost(const ir::Program& lowered);
std::string emitCuda(const ir::Program& lowered, const target::Target& target);

// The message of each run-time check, in the order the kernels number them
// (teml_fail's second argument).
std::vector<std::string> cudaCheckMessages(const ir::Program& lowered);

}  // namespace teml::codegen
