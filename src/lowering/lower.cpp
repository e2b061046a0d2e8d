#include "lowering/lower.hpp"

#include "diag/diagnostics.hpp"
#include "ir/hoist_invariant_checks.hpp"
#include "ir/mutator.hpp"
#include "ir/unique_statement_ids.hpp"
#include "ir/verify.hpp"
#include "lowering/branches_to_selects.hpp"
#include "lowering/carried_dependences.hpp"
#include "lowering/copy_plans.hpp"
#include "lowering/indirect_prefetches.hpp"
#include "lowering/local_boxes.hpp"
#include "lowering/memory_kinds.hpp"
#include "lowering/narrow_float_conversions.hpp"
#include "lowering/parallel_reductions.hpp"
#include "lowering/reduction_init.hpp"
#include "lowering/vector_plans.hpp"

namespace teml::lowering {

using namespace ir;

Program lower(const Program& scheduled, const target::Target& target, const std::string& analysisCacheDir) {
  Program p = scheduled;
  std::set<std::string> names;
  for (auto& t : p.tensors) names.insert(t.name);
  for (auto& n : p.nests)
    forEachStmt(n, [&](const StmtP& s) {
      if (s->kind == StmtKind::VarDef) names.insert(static_cast<const VarDef&>(*s).decl.name);
    });
  for (auto& t : p.tensors) t.mem = MemKind::Heap;  // the caller's buffers
  for (auto& n : p.nests) {
    n = uniqueStatementIds(narrowFloatConversions(branchesToSelects(hoistInvariantChecks(n))));  // nests of front ends that no primitive touched
    const StmtP asScheduled = n;
    n = initLocalsAtFirstReduction(n);
    n = markCarriedDependences(n);  // on the loops as scheduled, before accumulators rewrite them
    n = makeParallelReductions(n, asScheduled, p.tensors, names, analysisCacheDir);
    n = storeLocalBoxes(n, p.tensors);
    n = chooseMemoryKinds(n);
    n = uniqueStatementIds(n);  // the statements lowering added; the plans name statements by id
    n = planVectorLoops(n, p, target);
    n = planCopies(n, p, target);
    n = addIndirectPrefetches(n);
  }
  std::string wrong = verify(p);
  if (!wrong.empty()) throw InternalError("lowering made ill-formed IR: " + wrong);
  return p;
}

}  // namespace teml::lowering
