// No loop binds an iterator that an enclosing loop binds (ir::verify refuses
// shadowing). A primitive applied to a loop deep inside a program picks
// fresh iterator names among the loops it sees, not among the loops around
// it; this pass renames an inner loop whose iterator an enclosing loop
// already binds (`i_o` becomes `i_o2`), substituting it in the loop's body.
#pragma once
#include "ir/stmt.hpp"

namespace teml::ir {

StmtP uniqueIterators(const StmtP& s);

}  // namespace teml::ir
