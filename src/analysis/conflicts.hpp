// Which pairs of statement instances touch one element of a tensor in a way
// whose order matters (a write and any access; reductions of different
// kinds; a reduction and a read). The question the legality check asks isl
// for every tensor of a nest.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "analysis/isl_model.hpp"

namespace teml::analysis {

// Instance -> instance pairs over `occ` that conflict on `tensor`. Loaded
// values in subscripts are unknowns; where `constant` says the loaded tensor
// is written nowhere in the nest, two loads of one element are the same
// value (so `a[idx[i]]` and `a[idx[i] + 1]` never meet in one iteration).
isl_model::UMap conflictsOn(isl_ctx* ctx, const std::vector<isl_model::Occurrence>& occ, const std::string& tensor,
                            const std::set<std::string>& constant);

}  // namespace teml::analysis
