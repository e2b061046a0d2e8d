// Addressing loops by level, as TeML does: level 1 is the outermost loop of a
// nest and level k+1 the loop that is the whole body of level k.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "ir/stmt.hpp"
#include "ir/fresh_name.hpp"

namespace teml::schedule {

// The loops at levels 1..depth. Refuses (ScheduleError) when a level does not
// exist or the nest is not perfectly nested down to it.
std::vector<const ir::For*> loopsToLevel(const ir::StmtP& nest, int depth, const std::string& what);

// Number of perfectly nested levels.
int perfectDepth(const ir::StmtP& nest);

// The nest with the loop at `level` (of `chain`, from loopsToLevel) replaced by `replacement`.
ir::StmtP replaceLevel(const std::vector<const ir::For*>& chain, int level, ir::StmtP replacement);

// Every iterator name bound by a loop inside s.
std::set<std::string> boundVars(const ir::StmtP& s);
// Every iterator name bound by a loop inside s or used in s (a nest inside a
// program uses iterators of loops around it): a fresh iterator must avoid them.
std::set<std::string> namesIn(const ir::StmtP& s);
using ir::freshName;

// A loop id based on `base` that no loop of `nest` has.
std::string freshLoopId(const ir::StmtP& nest, const std::string& base);

// The statement a loop at `level` sees as its single child, unwrapping one-item sequences.
ir::StmtP singleChild(const ir::StmtP& s);

}  // namespace teml::schedule
