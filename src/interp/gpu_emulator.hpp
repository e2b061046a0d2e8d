// teml's GPU emulator (`teml run --target cuda --emulate`): runs a program
// lowered for a CUDA target on the CPU as the GPU would, kernel by kernel,
// block by block and thread by thread, each thread with its own iterators
// and local tensors. Every access of a kernel to memory its threads share
// is logged per element; two threads touching one element, at least one
// writing, not both atomically, is a race, reported as UserError (exit 1)
// with both statements and the element. Each kernel runs with its blocks
// and threads in several orders, which must agree (up to the rounding of
// float atomics). Threads run one after another to completion: barriers
// are not emulated yet (the lowering refuses kernels that need them).
#pragma once
#include "ir/program.hpp"
#include "runtime/buffer.hpp"

namespace teml::interp {

struct EmulatorOptions {
  int orders = 3;  // 1: in order; 2: also reversed; 3: also shuffled
};

void emulate(const ir::Program& lowered, runtime::BufferMap& buffers, const EmulatorOptions& options = {});

}  // namespace teml::interp
