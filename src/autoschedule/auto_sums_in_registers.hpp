// Sums kept in vector registers across the loop that adds into them. In
//   for l in range(L):            # or range(ptr[i], ptr[i + 1])
//       for d in range(64):
//           y[b, d] += table[index[b, l], d]
// (an embedding bag, a CSR row times a dense matrix) every l loads and
// stores the 64 sums. When the inner loop is a few vectors long, runs only
// sums into elements that do not move with the outer loop, and reads memory
// contiguously or not at all along it, the two are swapped and the inner
// one vectorized: its vectors are jammed around the outer loop, the sums
// loaded once before it and stored once after (lowering/cpu/vector_plans).
// When the inner loop is longer than that (a row of A in A^T x, a column
// sum), the outer loop is split by four and its four rows jammed into the
// inner one instead: each sum is loaded and stored once for four rows.
#pragma once
#include "autoschedule/auto_state.hpp"

namespace teml::autoschedule {

void autoSumsInRegisters(AutoState& state);

}  // namespace teml::autoschedule
