// Where the loops of a transformed nest come from (ir::Provenance).
#pragma once
#include <string>
#include <vector>

#include "ir/stmt.hpp"

namespace teml::schedule {

// `result` with each loop's provenance: a loop `primitive` left as it was
// (same id, same header) keeps its own; a loop it made or changed records
// `primitive` and the loop of `inputs` it comes from (same id, or the one
// whose id its id extends: "L1.2" for "L1.2.o", "L1.2.tail", "L1.2#2"),
// with that loop's source position.
ir::StmtP recordProvenance(const std::string& primitive, const std::vector<ir::StmtP>& inputs, const ir::StmtP& result);

}  // namespace teml::schedule
