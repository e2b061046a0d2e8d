// FreeTensor's auto_vectorize: each innermost loop not on threads runs in
// SIMD lanes when the legality check accepts it and it has at least one
// vector of iterations (or a trip count known only at run time).
#pragma once
#include "autoschedule/auto_state.hpp"

namespace teml::autoschedule {

void autoVectorize(AutoState& state);

}  // namespace teml::autoschedule
