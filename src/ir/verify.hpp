// The IR's invariants, checked after every transformation: a pass that
// breaks one is a bug in teml (InternalError), found where it happens
// instead of as a wrong result later.
#pragma once
#include <string>
#include <vector>

#include "ir/program.hpp"

namespace teml::ir {

// "" when `nest` is well formed among the program tensors `tensors`, else
// the first problem found:
// - scoping: every tensor accessed is a program tensor, a local tensor of an
//   enclosing loop or defined by an enclosing VarDef, indexed with one index
//   per dimension; every iterator used is bound by an enclosing loop;
// - no shadowing: no loop rebinds an iterator of a loop around it and no
//   VarDef redefines a tensor in scope (a loop's local tensors keep the
//   name of the program tensor they copy);
// - identity: loop ids are unique;
// - types: indices, loop bounds and conditions are integers or bools; a load
//   has its tensor's element type; loop steps are not zero.
std::string verify(const StmtP& nest, const std::vector<TensorDecl>& tensors);
std::string verify(const Program& program);

}  // namespace teml::ir
