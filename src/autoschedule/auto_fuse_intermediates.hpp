// Loops that hand an intermediate tensor from one to the next, fused so
// that the tensor shrinks to what one iteration uses (FreeTensor's
// auto_fuse, for free-form programs). libop's softmax,
//   for i: m[i] = -inf;  for k: for i: m[i] max= x[i, k]
//   for i: for j: e[i, j] = exp(x[i, j] - m[i])
//   for i: s[i] = 0;     for k: for i: s[i] += e[i, k]
//   for i: for j: y[i, j] = e[i, j] / s[i]
// materialises e (the whole matrix) and reads it twice from memory; fused
// over i, with m, e and s made `local` to the fused loop, e is one row in
// cache. Neighbouring loops of one sequence are fused (`fuse`) over loops
// of the same range, a loop moved outermost in its perfect nest
// (`reorder`) where it is not; a group of fused loops is kept only when
// some tensor it writes then becomes local and the fused loop can still
// run on threads, else its steps are taken back. Every step is checked.
#pragma once
#include "autoschedule/auto_state.hpp"

namespace teml::autoschedule {

void autoFuseIntermediates(AutoState& state);

}  // namespace teml::autoschedule
