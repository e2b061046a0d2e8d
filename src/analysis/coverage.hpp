// Which elements of a tensor a group of accesses touches, for the code
// generation shortcuts that skip work on elements that are overwritten
// anyway: a local tensor's initial fill, a cache's copy-in.
//
// The accesses all run in every iteration of `loops` (outer to inner, inside
// the loop that owns the tensor). In each index dimension the loops that
// move it must count like the digits of one number (a loop alone with
// coefficient 1, or the block and point loops of a strip-mined pair, the
// copies of an unrolled loop as its lowest digit); everything else is
// invariant in the loops (enclosing iterators, constants). A loop's range
// may move with outer loops (strip-mining, skewing) but must have a constant
// length, or be clamped by a min at the box's edge.
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
