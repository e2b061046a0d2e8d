// The vectors a nest gets before the automatic fusion (auto_fuse.hpp) fuses
// it with its neighbours: steps that keep its outermost loop in place, so
// that the nests still fuse over it.
#pragma once
#include <string>
#include <vector>

#include "autoschedule/auto_state.hpp"

namespace teml::autoschedule {

enum class FusedVectors {
  // The output's last index in SIMD vectors with the sums inside (a row of
  // the output in registers while the sums run), two rows jammed where the
  // vector operands do not change along them, and a small operand read
  // across the vector copied transposed once per outer iteration (helm, blur).
  Rows,
  // The outer loop's elements, one vector of them per iteration, each moved
  // just outside the sums and vectorized: sums too short for vectors of their
  // own run on whole vectors (interp).
  Lanes,
};

void vectorRows(AutoState& s, const ir::Program& program);
void elementLanes(AutoState& s);
// The way to take without measuring: lanes when the first nest's output rows
// are shorter than two vectors (a sum over them would run mostly in a
// partial vector), else rows.
FusedVectors preferredVectors(const std::vector<ir::StmtP>& nests, const target::Target& target);

// Copies `tensor`'s part per iteration of loop `id` (`how`: cache or
// cache_zeroed); the copy's name, "" when refused.
std::string copyPerIteration(AutoState& s, const std::string& id, const std::string& tensor,
                             const std::string& how = "cache");
// `tensor`'s element dimension (its first) moved last (var_reorder): the
// lanes' elements side by side.
bool elementsLast(AutoState& s, const std::string& tensor, size_t rank);

}  // namespace teml::autoschedule
