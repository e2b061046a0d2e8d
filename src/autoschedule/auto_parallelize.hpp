// FreeTensor's auto_parallelize: in each outermost loop's perfect nest, the
// outermost loop that may run on threads does (the first the legality check
// accepts). A loop whose trip count is known and smaller than the threads,
// or than 8 iterations a thread when a loop is nested in it, is passed over
// for one inside it. A loop whose iterations do work that data
// decide (a loop inside over range(ptr[i], ptr[i + 1])) gets a dynamic
// schedule, over blocks of iterations when it has many. A loop that may run
// on threads only under serial loops, with little work each time, moves
// outside them where that order is legal (one start of the threads, not
// one per iteration of the serial loops).
#pragma once
#include "autoschedule/auto_state.hpp"

namespace teml::autoschedule {

void autoParallelize(AutoState& state);

}  // namespace teml::autoschedule
