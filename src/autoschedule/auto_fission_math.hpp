// Math out of loops that cannot run in lanes. In
//   for j in range(S):
//       p = teml.exp(score[j] - top)
//       total += p
//       for d in range(D):
//           out[i, d] += p * V[j, d]
// the loop over j holds a loop, so it stays scalar, and its exp is called
// once per j, a scalar call (attention's weighted sum). When a loop with
// constant bounds starts with statements that call exp, log, sqrt, tanh,
// sigmoid, sin or cos, followed by loops, it is cut after those statements
// (`fission`; a scalar computed before the cut and read after it becomes
// one element per iteration): the first loop, with no loop inside, runs in
// lanes (auto_vectorize), the math in vector calls.
#pragma once
#include "autoschedule/auto_state.hpp"

namespace teml::autoschedule {

void autoFissionMath(AutoState& state);

}  // namespace teml::autoschedule
