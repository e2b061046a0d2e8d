// The backward pass reads the forward pass's values: the operands of every
// statement it differentiates or recomputes, the indices and the conditions
// and loop bounds around them. Where a later forward statement instance
// overwrites an element after such a read (isl decides, instance by
// instance, over the whole program in its order), the element's earlier
// value must be kept (autodiff/versions): the overwriting statements are
// found here. A `*=` reduction reads the value it overwrites itself.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "ir/program.hpp"

namespace teml::autodiff {

struct Overwrites {
  // Per nest: the ids of the statements whose instances overwrite values
  // the backward pass reads.
  std::vector<std::set<std::string>> writers;
  // The tensors written by the statements whose reads are overwritten (a
  // local among them cannot be recomputed in the backward pass: it would
  // read the values after the overwrite).
  std::set<std::string> readersWrite;
  // Per nest: the max= and min= reductions that overwrite values read
  // before them (their adjoint compares against the final value, so they
  // cannot be put back), with the message that refuses them.
  std::vector<std::set<std::string>> extremaWriters;
  std::string extremumRefusal;
};

// `needed`: tensors whose statements the backward pass differentiates or
// recomputes. Throws UserError when isl cannot tell.
Overwrites findOverwrites(const ir::Program& forward, const std::set<std::string>& needed);

// Per nest, those of `candidates` whose elements are written again
// afterwards only by `restored` (the writers whose values the backward pass
// puts back): the backward pass meets each element as the candidate left
// it. So an invertible update (`+=`, `*=` by a nonzero constant) can be
// undone in place instead of keeping the value it overwrote, and the
// partial of y = exp(u) can read y instead of computing exp(u) again.
// Throws UserError when isl cannot tell.
std::vector<std::set<std::string>> metAsLeft(const ir::Program& forward, const std::vector<std::set<std::string>>& candidates,
                                             const std::vector<std::set<std::string>>& restored);

}  // namespace teml::autodiff
