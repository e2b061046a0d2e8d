// A CSR row array's order is checked twice by the free-form front end:
// once for the whole array before the nest (wholeRowOrderCheck), and row
// by row around each loop over a row (rowOrderCheck), where the dependence
// analysis reads it. Once every pass that asks the analysis has run, the
// row-by-row checks of an array whose whole check runs on every path of
// the nest say nothing new: they are dropped (their loops stay), so each
// row is checked once (issue 46: SpMV's kernel repeated the guard).
#pragma once
#include "ir/stmt.hpp"

namespace teml::lowering {

ir::StmtP rowChecksOnce(const ir::StmtP& nest);

}  // namespace teml::lowering
