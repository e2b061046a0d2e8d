// Run-time index checks move out of the loops they do not depend on: a
// check at the top of a loop's body whose condition uses neither the loop's
// iterator nor anything the loop writes is made once, before the loop
// (guarded by the loop running at all), instead of in every iteration.
// The free-form front end runs it on the program as written (row-order
// checks leave the loops over rows); lowering runs it again on the nest as
// scheduled, where a check may have become invariant in a loop a step put
// inside (a bounds check of h[idx[k], j] in a vector loop over j, which a
// call to report a failure would keep out of SIMD lanes).
#pragma once
#include "ir/stmt.hpp"

namespace teml::ir {

StmtP hoistInvariantChecks(const StmtP& s);

}  // namespace teml::ir
