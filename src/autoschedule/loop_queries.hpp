// Loops of a nest by position, as the automatic passes look for them. Ids,
// not pointers: every step rebuilds the nest.
#pragma once
#include <string>
#include <vector>

#include "ir/stmt.hpp"

namespace teml::autoschedule {

// Loops that no other loop encloses, in program order.
std::vector<std::string> outermostLoops(const ir::StmtP& s);
// `loop` and the loops perfectly nested in it (each the only statement of
// the one around it, scoped tensors aside), outermost first.
std::vector<std::string> perfectChain(const ir::StmtP& s, const std::string& loop);
// Loops with no loop inside, in program order.
std::vector<std::string> innermostLoops(const ir::StmtP& s);
// The loop with this id (null: none).
const ir::For* loopWithId(const ir::StmtP& s, const std::string& id);
// The iterations of a step-1 loop with constant bounds (-1: not known).
int64_t constantTrips(const ir::For& f);
// The statements of a loop's body, inside its local tensors and the
// tensors it defines (as fission counts them).
std::vector<ir::StmtP> bodyItems(const ir::For& f);
// `e` is the iterator `v` itself.
bool isVar(const ir::ExprP& e, const std::string& v);

}  // namespace teml::autoschedule
