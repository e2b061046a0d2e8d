// Is it safe for the loops of a nest to own the tensors they declare local?
// Each element of a local tensor must be used within one iteration of its
// loop only (for every combination of the enclosing loops), so that a fresh
// copy per iteration computes what the whole tensor would.
#pragma once
#include <string>

#include "ir/stmt.hpp"

namespace teml::analysis {

// "" when every local tensor of `nest` is sound, else why not. With
// `dependences` false only the structure is checked (every access inside the
// owning loop, a computable box), not the isl condition above (--no-check).
// Answers of the isl condition are kept in `cacheDir` ("": not kept).
std::string checkLocals(const ir::StmtP& nest, bool dependences, const std::string& cacheDir = "");

}  // namespace teml::analysis
