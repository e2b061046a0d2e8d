// The box of a local tensor that one iteration of its loop touches. Code
// generation stores only this box, and the interpreter checks every access
// against it.
#pragma once
#include <string>
#include <vector>

#include "ir/stmt.hpp"

namespace teml::analysis {

struct LocalBox {
  bool used = false;                // some access of the tensor lies in the loop
  std::vector<ir::ExprP> offset;    // per dimension: the box's first index, in enclosing iterators
  std::vector<int64_t> extent;      // per dimension: the box's size
  int64_t elementCount() const {
    int64_t n = 1;
    for (auto e : extent) n *= e;
    return n;
  }
};

// The box of `tensor` that one execution of `scope` touches (the body of the
// loop the tensor is local to). Every index of `tensor` in `scope` must be
// affine, and each dimension must move with the enclosing iterators the same
// way in every access; the loops inside `scope` must have bounds that do not
// depend on enclosing iterators. Returns false with the reason otherwise.
bool localBox(const ir::StmtP& scope, const std::string& tensor, LocalBox* out, std::string* why);

}  // namespace teml::analysis
