// The recomputation of a tensor defined inside the program, for its scope in
// the backward pass: the statements of the scope that compute its value, and
// only those (a backward slice). Free-form locals nest (each local's scope
// holds the next local's), so a scope's statements compute many locals; each
// scope recomputes its own local and what that local's value reads inside
// the scope, never the locals of the scopes within it, which recompute
// themselves.
#pragma once
#include <set>
#include <string>

#include "ir/stmt.hpp"

namespace teml::autodiff {

// The statements of `scope` (the body of `local`'s VarDef) that `local`'s
// value depends on, as copies; null when none writes it.
ir::StmtP recomputation(const ir::StmtP& scope, const std::string& local);

// The tensors defined inside `scope` whose statements that recomputation
// runs again (`local` itself included).
std::set<std::string> recomputedWith(const ir::StmtP& scope, const std::string& local);

}  // namespace teml::autodiff
