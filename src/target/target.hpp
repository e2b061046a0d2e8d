// What generated code is made for: the lowering stage, the emitters and the
// runtime all take a Target instead of asking the machine themselves, so one
// process can compile for another vector width (TEML_VECTOR_BYTES, tests)
// and a second back end can be added beside the CPU's.
#pragma once
#include <string>

#include "ir/expr.hpp"

namespace teml::target {

enum class Kind { Cpu };  // room for a GPU

struct Target {
  Kind kind = Kind::Cpu;
  std::string isa = "sse2";  // the widest vector instruction set: "avx512f", "avx", "sse2"
  int vectorBytes = 16;      // bytes in one SIMD register
  int threads = 0;           // threads a parallel loop runs on; 0: OpenMP's default
  // Elements of type t in one SIMD register.
  int lanes(ir::DType t) const { return vectorBytes / ir::bytes(t); }
};

// The machine teml runs on: its widest vector unit (64 bytes with AVX-512,
// 32 with AVX, else 16), or TEML_VECTOR_BYTES (16, 32 or 64) when set.
// Wider vectors than the machine's would be split by the C compiler into
// several registers and run far slower.
Target hostCpu(int threads = 0);

}  // namespace teml::target
