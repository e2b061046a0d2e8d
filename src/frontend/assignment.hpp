// A tensor assignment ready to be wrapped in loops: target[indices] = value (or
// op= value), with the order of its iterators and the range of each. Front ends
// produce these; buildNest turns one into a perfect loop nest.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "diag/diagnostics.hpp"
#include "ir/stmt.hpp"

namespace teml::frontend {

struct Assignment {
  std::string tensor;
  std::vector<ir::ExprP> indices;
  ir::ExprP value;
  std::optional<ir::ReduceOp> reduce;  // set: target op= value
  std::vector<std::string> order;      // iterators, outermost first
  std::map<std::string, int64_t> extents;  // iterator -> number of values, from 0
  SourceLoc loc;
};

// for order[0] in [0, extent) ... for order[n-1]: the statement. Loop ids are
// idPrefix + "1", idPrefix + "2", ... from outermost; the statement is tagged
// `statementId` for dependence analysis.
ir::StmtP buildNest(const Assignment& a, const std::string& idPrefix, const std::string& statementId);

}  // namespace teml::frontend
