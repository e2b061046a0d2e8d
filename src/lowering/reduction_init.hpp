// A local tensor whose first use in each iteration of its loop is a
// reduction (t[i][j] += ... over l, from t's initial value) is set to that
// value element by element just before the element's reduction, instead of
// filling the whole box when the iteration starts; the C compiler (or the
// vector code) then starts the sum at the value without loading it. A local
// whose first use stores every element needs no fill at all. Applied only
// where every element of the box is provably set this way, each in one
// place (analysis/coverage.hpp); elsewhere the nest is unchanged.
#pragma once
#include <set>
#include <string>

#include "ir/program.hpp"
#include "ir/stmt.hpp"
#include "target/target.hpp"

namespace teml::lowering {

ir::StmtP initLocalsAtFirstReduction(const ir::StmtP& nest);

// The same for the program's float outputs, which start a call at zero: an
// output whose first nest only reduces into it (an embedding bag's `y[b, d]
// += table[index[b, l], d]`), every element in one place, is set to zero
// there just before each element's first reduction. The sums then start at
// zero in registers without loading the output, and the caller need not
// zero it (returned: the outputs so set; python/teml's `out=`).
// On one CPU rank only: a GPU block's threads would run the zeros' loop each
// and race with the sums; MPI ranks exchange what the nests write.
std::set<std::string> initOutputsAtFirstReduction(ir::Program& p);
bool setsOutputsAtFirstReduction(const target::Target& target);

}  // namespace teml::lowering
