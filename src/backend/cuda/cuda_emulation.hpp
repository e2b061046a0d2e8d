// The GPU emulator as a whole program (`--emulate`, Python's
// `emulate=True`): the host code the emitter prints, compiled by the system
// C compiler exactly as for a GPU, with the buffers on the CPU; each launch
// it makes runs in interp's emulator (interp/gpu_emulator), tensors found
// by the pointers the host code passes, and a host tensor between kernels
// is a buffer of the emulator's. So the emulator runs the host code that
// runs on a GPU, not a second reading of the IR.
#pragma once
#include "interp/gpu_emulator.hpp"
#include "ir/program.hpp"
#include "runtime/buffer.hpp"
#include "runtime/jit.hpp"

namespace teml::backend {

void emulateCuda(const ir::Program& lowered, runtime::BufferMap& buffers, const runtime::JitOptions& jit,
                 const interp::EmulatorOptions& options = {});

}  // namespace teml::backend
