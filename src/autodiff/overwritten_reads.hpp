// The backward pass reads the forward pass's values after the forward pass
// has finished: the operands of every statement it differentiates or
// recomputes, the indices and the conditions and loop bounds around them.
// That is right only where no later forward statement instance changes the
// element read (isl decides, instance by instance, over the whole program
// in its order). A read that is overwritten needs that element's versions
// kept, which is not built yet: the gradient is refused, naming both.
#pragma once
#include <set>
#include <string>

#include "ir/program.hpp"

namespace teml::autodiff {

// Throws UserError when a read of a statement writing one of `needed`
// (tensors whose statements the backward pass differentiates or recomputes)
// may see a value that a later instance overwrites, or when isl cannot tell.
void refuseOverwrittenReads(const ir::Program& forward, const std::set<std::string>& needed);

}  // namespace teml::autodiff
