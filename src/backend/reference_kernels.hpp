// The reference interpreter and the GPU emulator as Kernels: `teml run
// --interp`, `--emulate` and Python's emulate=True run through the same
// interface as compiled code (backend.hpp). Each run copies the caller's
// buffers in, runs, and copies every tensor back.
#pragma once
#include <memory>

#include "backend/backend.hpp"

namespace teml::backend {

// The program as scheduled, in the reference interpreter (interp/interpreter.hpp).
std::unique_ptr<Kernel> interpreterKernel(const ir::Program& program);
// A program lowered for a CUDA target: its host code compiled with `jit`'s
// C compiler, its launches in the GPU emulator (cuda/cuda_emulation.hpp).
std::unique_ptr<Kernel> emulatorKernel(const ir::Program& lowered, const runtime::JitOptions& jit);

}  // namespace teml::backend
