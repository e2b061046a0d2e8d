// Run-time index checks move out of the loops they do not depend on: a
// check at the top of a loop's body whose condition uses neither the loop's
// iterator nor anything the loop writes is made once, before the loop
// (guarded by the loop running at all), instead of in every iteration.
#pragma once
#include "ir/stmt.hpp"

namespace teml::freeform {

ir::StmtP hoistInvariantChecks(const ir::StmtP& s);

}  // namespace teml::freeform
