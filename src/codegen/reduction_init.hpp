// A local tensor whose first use in each iteration of its loop is a
// reduction (t[i][j] += ... over l, from t's initial value) is set to that
// value element by element just before the element's reduction, instead of
// filling the whole box when the iteration starts. The C compiler then
// starts the accumulator at the value without loading it, and the fill is
// gone. Applied only where every element of the box is provably set this
// way and no two iterations of the loops around the reduction share an
// element (analysis/coverage.hpp); elsewhere the nest is unchanged.
#pragma once
#include "ir/stmt.hpp"

namespace teml::codegen {

ir::StmtP initLocalsAtFirstReduction(const ir::StmtP& nest);

}  // namespace teml::codegen
