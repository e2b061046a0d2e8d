// Products apart. The gradient of a product with respect to both of its
// operands sums two products in one nest,
//   for i: for k: for j:
//       x.grad[i, k] += y.grad[i, j] * w[k, j]
//       w.grad[k, j] += y.grad[i, j] * x[i, k]
// each over a loop the other keeps (x.grad's sum runs over j, w.grad's
// over i), so no loop order suits both: the nest ran as a rank-1 update of
// all of w.grad per row. A perfect nest whose innermost body is only such
// sums, into different tensors indexed by different loops, is cut between
// its statements at every level, innermost first (`fission`), into one
// perfect nest per statement, each then a product that auto_register_blocks
// blocks on its own (an MLP layer's backward pass, 512 x 256 x 384 floats,
// one thread: 5.4 -> 1.3 ms).
#pragma once
#include "autoschedule/auto_state.hpp"

namespace teml::autoschedule {

void autoFissionContractions(AutoState& state);

}  // namespace teml::autoschedule
