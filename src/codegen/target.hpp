// Facts about the machine the generated code is compiled for.
#pragma once

namespace teml::codegen {

// Bytes in one SIMD register of this machine (64 with AVX-512, 32 with AVX,
// else 16), or TEML_VECTOR_BYTES (16, 32 or 64) when set. Explicit vector
// code uses vectors of this size: wider ones would be split by the C
// compiler into several registers and run far slower.
int vectorBytes();

}  // namespace teml::codegen
