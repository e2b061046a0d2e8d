// The inspector of an indexed gather (inspector-executor, as in Saltz's
// PARTI and CHAOS): where a distributed step reads a tensor through indices
// it loads from data, isl bounds the rows a rank reads by the whole tensor.
// Just before the step, each rank runs this copy of its part of the step:
// the same loops (serial, its distributed ones still bound to the rank's
// block), and, for each statement, a mark in `named` (a bool per row) of
// the row each load of `tensor` reads (its first subscript), where that row
// exists. Branches are taken both ways (a superset of the rows). The
// indexed gather then brings only the marked rows (ir::ExchangeKind).
#pragma once
#include <optional>
#include <string>

#include "ir/stmt.hpp"

namespace teml::lowering {

// Nullopt where the copy cannot name the rows: the step writes `tensor`, or
// a subscript of it or a loop bound reads a tensor the step writes or
// defines, or the step holds a statement other than loops, branches,
// checks, local tensors, stores and reductions.
std::optional<ir::StmtP> inspectorOf(const ir::StmtP& step, const std::string& tensor, const std::string& named,
                                     int64_t rows);

}  // namespace teml::lowering
