// What generated code is made for: the lowering stage, the emitters and the
// runtime all take a Target instead of asking the machine themselves, so one
// process can compile for another vector width (TEML_VECTOR_BYTES, tests)
// and a second back end can be added beside the CPU's.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "ir/expr.hpp"

namespace teml::target {

enum class Kind { Cpu, Cuda };
const char* kindName(Kind k);  // "cpu", "cuda"
// The kind a target's name names (the CLI's --target, Python's target=,
// @teml.schedule(f, target=...)); nullopt for any other name.
std::optional<Kind> kindNamed(const std::string& name);

// What a CUDA kernel may use on the GPU it is made for: from the device
// when the runtime finds one (runtime/cuda), else the defaults of its
// architecture (cudaTarget).
struct GpuLimits {
  int sm = 90;                        // compute capability x 10: sm_90 is an H100
  int warpSize = 32;
  int multiprocessors = 132;          // SMs: a grid with fewer blocks leaves some idle
  int maxThreadsPerBlock = 1024;
  int registersPerThread = 255;
  int64_t sharedBytes = 48 << 10;         // a block's static shared memory
  int64_t sharedBytesOptIn = 227 << 10;   // with the dynamic opt-in
  // For the automatic schedule's cost model (autoschedule/gpu_cost): an
  // H200's, the card this project measures on.
  double clockGhz = 1.98;
  double memoryGBs = 4800;            // DRAM
  double l2GBs = 10000;
  double l2Bytes = 50e6;
  std::string device;                 // the device's name ("" for defaults)
  std::string arch() const { return "sm_" + std::to_string(sm); }
};

struct Target {
  Kind kind = Kind::Cpu;
  std::string isa = "sse2";  // the widest vector instruction set: "avx512f", "avx", "sse2"
  int vectorBytes = 16;      // bytes in one SIMD register
  int threads = 0;           // threads a parallel loop runs on; 0: OpenMP's default
  GpuLimits gpu;             // of a CUDA target
  int ranks = 1;             // MPI ranks a CPU program is lowered for (docs/distributed.md)
  int rankGridRows = 0;      // rows of the grid of ranks of two distributed loops (0: chosen)
  // The core runs each 64-byte vector operation as two 32-byte halves (AMD
  // Zen 4's AVX-512): a 64-byte load off a line's edge then costs no more
  // than the two 32-byte loads that would replace it.
  bool halvesWideVectors = false;
  // A vector load that starts off a cache line's edge costs more than one on
  // it: not on a core that halves 64-byte vectors (measured there: copies
  // to aligned memory, and peeling a reduction's first iterations to reach
  // an edge, only added time; docs/python.md, nest_emitter_partial_sums.cpp).
  bool misalignedLoadsCost() const { return !(vectorBytes == 64 && halvesWideVectors); }
  // Elements of type t in one SIMD register.
  int lanes(ir::DType t) const { return vectorBytes / ir::bytes(t); }
  // Vector registers an x86-64 core names: 32 with AVX-512, else 16.
  int vectorRegisters() const { return vectorBytes >= 64 ? 32 : 16; }
};

// The machine teml runs on: its widest vector unit (64 bytes with AVX-512,
// 32 with AVX, else 16), or TEML_VECTOR_BYTES (16, 32 or 64) when set.
// Wider vectors than the machine's would be split by the C compiler into
// several registers and run far slower. halvesWideVectors: an AMD core of
// family 19h with AVX-512 (Zen 4), or TEML_WIDE_VECTORS=halved (=whole: not).
Target hostCpu(int threads = 0);

// A CUDA target for `arch` ("sm_80", "sm_90", ...; "" for sm_90) with that
// architecture's limits. Throws UsageError for an architecture it does not know.
Target cudaTarget(const std::string& arch = "");

}  // namespace teml::target
