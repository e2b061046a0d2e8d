// Addressing statements by id, as free-form schedules do: a loop anywhere in
// a program (inside branches, sequences, scoped tensors), named by its id
// (a label given in the source is the loop's id).
#pragma once
#include <string>
#include <vector>

#include "ir/stmt.hpp"

namespace teml::schedule {

// The loop with this id; refuses (ScheduleError) naming the loops there are.
ir::StmtP findLoop(const ir::StmtP& top, const std::string& id, const std::string& what);
// The loop ids of s, in program order.
std::vector<std::string> loopIds(const ir::StmtP& s);
// `top` with the statement `target` (a node of top) replaced.
ir::StmtP replaceStmt(const ir::StmtP& top, const ir::StmtP& target, const ir::StmtP& replacement);
// `top` with two consecutive statements `first`, `second` of one sequence
// replaced by one; refuses when they are not such neighbours.
ir::StmtP replacePair(const ir::StmtP& top, const ir::StmtP& first, const ir::StmtP& second,
                      const ir::StmtP& replacement, const std::string& what);
// Where a loop sits for the level-based transformations: the outermost loop
// of the perfect nest it belongs to (its ancestors up to the first that has
// more than this one statement in its body), and its level there. The
// transformations see the ranges of every loop of that nest.
struct LoopSite {
  ir::StmtP nest;
  int level = 0;
};
LoopSite siteOf(const ir::StmtP& top, const std::string& id, const std::string& what);
// The loops of `top` around its statement `s`, the outermost first (the
// ranges a transformation of s's nest may also rely on).
std::vector<const ir::For*> loopsAround(const ir::StmtP& top, const ir::StmtP& s);
// Two loops of one perfect nest (refused otherwise), the outer one first.
std::pair<LoopSite, LoopSite> sitesOf(const ir::StmtP& top, const std::string& a, const std::string& b,
                                      const std::string& what);

}  // namespace teml::schedule
