// Loop orders for contiguous inner loops, in the spirit of FreeTensor's
// auto_reorder: where a loop with a vector's worth of iterations (a
// feature loop) runs an inner loop whose accesses it walks contiguously,
// while the inner loop scatters or gathers along its own iterator (a CSR
// row: h[idx[k], j]), the inner loop is cut out of the outer one's body
// (fission) and moved outside it (reorder), so that the innermost loop
// walks rows of memory in SIMD lanes:
//
//   for j: y[i, j] = 0; for k in row: y[i, j] += h[idx[k], j] * e[k]; ...
//   ->  for j: y[i, j] = 0;  for k in row: for j: y[i, j] += ...;  for j: ...
//
// Every step is checked like a user's; a refused one leaves the nest as
// it was.
#pragma once
#include "autoschedule/auto_state.hpp"

namespace teml::autoschedule {

void autoLoopOrder(AutoState& state);

}  // namespace teml::autoschedule
