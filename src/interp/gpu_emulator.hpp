// teml's GPU emulator (`teml run --target cuda --emulate`): runs a kernel
// of a program lowered for a CUDA target on the CPU as the GPU would,
// block by block and thread by thread, each thread with its own iterators
// and local tensors. Every access of a kernel to memory its threads share
// is logged per element; two threads touching one element, at least one
// writing, not both atomically, is a race, reported as UserError (exit 1)
// with both statements and the element. Each kernel runs with its blocks
// and threads in several orders, which must agree (up to the rounding of
// float atomics). Threads of a block with barriers run as coroutines that
// meet at each barrier; other blocks' threads run one after another.
#pragma once
#include <map>

#include "ir/program.hpp"
#include "runtime/buffer.hpp"

namespace teml::interp {

struct EmulatorOptions {
  int orders = 3;  // 1: in order; 2: also reversed; 3: also shuffled
};

// One launch of `kernel` (a loop whose plan names it) on `grid` blocks:
// `tensors` holds each tensor it takes by name (its plan's tensorArgs),
// `iterators` the host's iterators it reads. The whole program runs
// through its host code (backend/cuda/cuda_emulation), which launches.
void emulateKernel(const ir::Program& lowered, const ir::For& kernel, runtime::BufferMap& tensors,
                   const std::map<std::string, int64_t>& iterators, const int64_t grid[3],
                   const EmulatorOptions& options = {});

}  // namespace teml::interp
