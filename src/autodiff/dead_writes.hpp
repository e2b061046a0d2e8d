// Statements whose every write is overwritten before anything reads it: a
// loop computing `s`, then `s = x[N - 1]`. Their adjoints are zero, so the
// backward pass leaves them out; run, it would multiply those zeros by their
// partials, which are infinite or NaN where the dead values overflowed
// (0 * inf = NaN in every gradient; fuzz seed 10232). The forward pass
// still runs them as written.
//
// Looked for among the statements at the top of each nest (a nest that is
// one loop is one statement), against the statements after it in its nest
// and the nests after that (analysis/written_before_read): a dead write
// inside a loop's body still runs backward. Only where no statement before
// it reads what it writes: their backward passes want the values it
// overwrote, which its own backward pass restores.
#pragma once
#include <set>
#include <string>

#include "ir/program.hpp"

namespace teml::autodiff {

// The ids of those statements.
std::set<std::string> deadStatements(const ir::Program& p);

// `nest` without the statements `ids` names (at its top); null if none is left.
ir::StmtP withoutStatements(const ir::StmtP& nest, const std::set<std::string>& ids);

}  // namespace teml::autodiff
