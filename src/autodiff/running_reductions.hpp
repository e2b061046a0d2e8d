// A store that combines an element with a value and writes it back,
// `y[I] = max(y[I], e)` (also min, y[I] + e and e + y[I]), with e not
// reading y, is the reduction `y[I] max= e`: the same instances in the same
// order. Written as a reduction, the backward pass needs no value of y from
// before the update (for a sum none at all; for max and min only y's final
// value), so a running maximum or sum is differentiated without keeping
// y's versions. A running max or min whose values in between are read by
// other statements (and overwritten by it afterwards) stays a store, whose
// overwritten values are kept like any store's: `keep` names those
// statements, per nest (a max= or min= reduction among them, as a front
// end may write it, becomes that store).
#pragma once
#include <set>
#include <string>
#include <vector>

#include "ir/program.hpp"

namespace teml::autodiff {

ir::Program runningReductionsAsReductions(const ir::Program& p, const std::vector<std::set<std::string>>& keep = {});

}  // namespace teml::autodiff
