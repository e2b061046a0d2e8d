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
};

// `needed`: tensors whose statements the backward pass differentiates or
// recomputes. Throws UserError when isl cannot tell, or when a `max=` or
// `min=` reduction overwrites a value that is read (its adjoint takes the
// target's final value, not a version).
Overwrites findOverwrites(const ir::Program& forward, const std::set<std::string>& needed);

}  // namespace teml::autodiff
