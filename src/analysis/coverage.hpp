// Which elements of a tensor a group of accesses touches, for the code
// generation shortcuts that skip work on elements that are overwritten
// anyway: a local tensor's initial fill, a cache's copy-in.
//
// The accesses all run in every iteration of `loops` (outer to inner, inside
// the loop that owns the tensor). An index dimension may move with at most
// one of those loops, with coefficient 1; everything else in it is invariant
// in the loops (enclosing iterators, constants).
#pragma once
#include <string>
#include <vector>

#include "analysis/local_box.hpp"
#include "ir/stmt.hpp"

namespace teml::analysis {

// True when no two different iterations of `loops` touch the same element.
bool iterationsDisjoint(const std::vector<const ir::For*>& loops, const std::vector<std::vector<ir::ExprP>>& accesses);

// True when, together, the accesses touch every element of `box` that lies
// inside a tensor of `shape` (box elements past the tensor are never used).
bool coversBox(const std::vector<const ir::For*>& loops, const std::vector<std::vector<ir::ExprP>>& accesses,
               const LocalBox& box, const std::vector<int64_t>& shape);

// Accesses in several statements, each with the loops around them.
struct AccessGroup {
  std::vector<const ir::For*> loops;
  std::vector<std::vector<ir::ExprP>> accesses;
};

// True when the groups touch disjoint sets of elements that together cover
// `box` inside the tensor: each group touches exactly a box (constant trip
// counts), and the boxes tile one dimension (a loop's main part and its
// remainder) while agreeing in the others.
bool groupsTileBox(const std::vector<AccessGroup>& groups, const LocalBox& box, const std::vector<int64_t>& shape);

// True when some store of `tensor` in the body of `owner`, run on every
// path (under loops only, no guard), writes every element of `box` inside
// the tensor in each iteration of `owner`.
bool storeCoversBox(const ir::For& owner, const std::string& tensor, const LocalBox& box,
                    const std::vector<int64_t>& shape);

}  // namespace teml::analysis
