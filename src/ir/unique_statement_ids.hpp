// Statement ids are unique within a nest. Primitives that copy statements
// (unrolling, jamming, remainders) repeat the ids of what they copy; this
// pass keeps the first occurrence's id (in program order) and gives each
// later copy `id#k`, so a statement can always be named, and analyses
// keyed by id (isl's schedule positions, local tensors' owners, the
// lowering stage's strategies) never confuse two. Statements without an id
// (new ones a front end or primitive made) get the next free `S<n>`.
#pragma once
#include "ir/stmt.hpp"

namespace teml::ir {

StmtP uniqueStatementIds(const StmtP& nest);

}  // namespace teml::ir
