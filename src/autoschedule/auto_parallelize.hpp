// FreeTensor's auto_parallelize: in each outermost loop's perfect nest, the
// outermost loop that may run on threads does (the first the legality check
// accepts). A loop whose trip count is known and smaller than the threads is
// passed over for one inside it.
#pragma once
#include "autoschedule/auto_state.hpp"

namespace teml::autoschedule {

void autoParallelize(AutoState& state);

}  // namespace teml::autoschedule
