// The box of a local tensor that one iteration of its loop touches. Code
// generation stores only this box, and the interpreter checks every access
// against it.
#pragma once
#include <string>
#include <vector>

#include "ir/stmt.hpp"

namespace teml::analysis {

using LocalBox = ir::Box;

// The box of `tensor` that one execution of `scope` touches (the body of the
// loop the tensor is local to). Every index of `tensor` in `scope` must be
// affine, and each dimension must move with the enclosing iterators the same
// way in every access; the loops inside `scope` must have bounds that do not
// depend on enclosing iterators. Returns false with the reason otherwise.
bool localBox(const ir::StmtP& scope, const std::string& tensor, LocalBox* out, std::string* why);

}  // namespace teml::analysis
