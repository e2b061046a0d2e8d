// An indexed gather's inspector and requests (lowering/distributed/
// inspector) run once before a time loop instead of in every iteration
// where the rows the step names cannot change between iterations: the
// inspector reads neither the loop's iterator nor a tensor the loop writes
// or defines. The rows themselves still move in every iteration.
#pragma once
#include "ir/stmt.hpp"

namespace teml::lowering {

// `loop` (a For), or a Seq of the requests it no longer repeats and then it.
ir::StmtP hoistInspectors(const ir::StmtP& loop);

}  // namespace teml::lowering
