// A local tensor whose first use in each iteration of its loop is a
// reduction (t[i][j] += ... over l, from t's initial value) is set to that
// value element by element just before the element's reduction, instead of
// filling the whole box when the iteration starts; the C compiler (or the
// vector code) then starts the sum at the value without loading it. A local
// whose first use stores every element needs no fill at all. Applied only
// where every element of the box is provably set this way, each in one
// place (analysis/coverage.hpp); elsewhere the nest is unchanged.
#pragma once
#include "ir/stmt.hpp"

namespace teml::lowering {

ir::StmtP initLocalsAtFirstReduction(const ir::StmtP& nest);

}  // namespace teml::lowering
