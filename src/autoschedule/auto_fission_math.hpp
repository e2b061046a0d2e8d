// Math out of loops that cannot run in lanes. In
//   for j in range(S):
//       p = teml.exp(score[j] - top)
//       total += p
//       for d in range(D):
//           out[i, d] += p * V[j, d]
// the loop over j holds a loop, so it stays scalar, and its exp is called
// once per j, a scalar call (attention's weighted sum). When a loop with
// constant bounds starts with statements that call exp, log, sqrt, tanh,
// sigmoid, sin or cos, or divide floats, followed by loops, it is cut after
// those statements (`fission`; a scalar computed before the cut and read
// after it becomes one element per iteration): the first loop, with no loop
// inside, runs in lanes (auto_vectorize), the math in vector calls. Such
// statements after the last loop are cut off the same way (softmax's
// gradient, after a dot product per element), in a pass of their own after
// auto_loop_order: a loop whose inner loop that pass moves out (GAT's
// features around a CSR row, then `y[i, j] /= sum`) keeps that order.
#pragma once
#include "autoschedule/auto_state.hpp"

namespace teml::autoschedule {

enum class MathCut { BeforeLoops, AfterLoops };

void autoFissionMath(AutoState& state, MathCut cut);

}  // namespace teml::autoschedule
