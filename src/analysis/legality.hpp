// Dependence-based legality of reordering transformations, computed with isl
// (which stays inside src/analysis). Statement instances are identified by
// their tags (ir::StmtTag), so `before` and `after` may differ by any
// reordering, copying or renaming of loops.
#pragma once
#include <set>
#include <string>

#include "ir/stmt.hpp"

namespace teml::analysis {

struct Legality {
  bool legal = true;
  // When not legal: the dependence that `after` would reverse, e.g.
  // "the dependence (i, j) -> (i + 2, j - 1) on 'a' (written at line 4, read at line 4)".
  std::string violation;
};

// Every dependence between instances in `before` (write then read, read then
// write, write then write; reductions of one kind into the same element
// commute) must keep its order in `after`, and the instances that share one
// copy of a scoped tensor (a VarDef's, a cache's) must share one copy in
// `after` too. Untagged statements are ignored.
// When isl's work budget runs out the answer is "not legal" with a reason.
// With a `cacheDir`, answers are kept there (keyed by the problem's text) so
// that re-running a meta-program does not repeat the analysis.
Legality checkReordering(const ir::StmtP& before, const ir::StmtP& after, const std::string& cacheDir = "");

}  // namespace teml::analysis

namespace teml::analysis {

// True when no two iterations of the loop `loopId` in `nest` touch the same
// element with at least one write (reductions included): the loop can run on
// threads or SIMD lanes with no synchronization at all. Exact for affine
// subscripts including / and mod (e.g. merged loops); false when isl cannot
// decide or a statement is untagged. Answers are kept in `cacheDir` as
// checkReordering's are ("": not kept). With `only`, the question is
// asked of those tensors alone.
bool loopIsIndependent(const ir::StmtP& nest, const std::string& loopId, const std::string& cacheDir = "",
                       const std::set<std::string>& only = {});

}  // namespace teml::analysis
