#include "lowering/lower.hpp"

#include <functional>

#include "analysis/written_before_read.hpp"
#include "diag/diagnostics.hpp"
#include "ir/hoist_invariant_checks.hpp"
#include "ir/mutator.hpp"
#include "ir/unique_statement_ids.hpp"
#include "ir/verify.hpp"
#include "lowering/branches_to_selects.hpp"
#include "lowering/carried_dependences.hpp"
#include "lowering/checks_by_range.hpp"
#include "lowering/distributed/exchanges.hpp"
#include "lowering/distributed/grid_choice.hpp"
#include "lowering/distributed/row_checks_by_rank.hpp"
#include "lowering/distributed/rows_by_index.hpp"
#include "lowering/local_boxes.hpp"
#include "lowering/narrow_float_conversions.hpp"
#include "lowering/pass_log.hpp"
#include "lowering/parallel_reductions.hpp"
#include "lowering/reduction_init.hpp"
#include "lowering/row_checks_once.hpp"
#include "lowering/single_iteration_loops.hpp"
#include "lowering/target_passes.hpp"

namespace teml::lowering {

using namespace ir;

// The passes every target shares, then the target's own (target_passes.hpp).
Program lower(const Program& scheduled, const target::Target& target, const std::string& analysisCacheDir,
              PassLog* log) {
  Program p = scheduled;
  std::set<std::string> names;
  for (auto& t : p.tensors) names.insert(t.name);
  for (auto& n : p.nests)
    forEachStmt(n, [&](const StmtP& s) {
      if (s->kind == StmtKind::VarDef) names.insert(s->as<VarDef>().decl.name);
    });
  for (auto& t : p.tensors) t.mem = MemKind::Heap;  // the caller's buffers
  p.temporariesWrittenFirst = analysis::temporariesWrittenBeforeRead(p);  // before exchanges hide what stores them
  if (setsOutputsAtFirstReduction(target)) initOutputsAtFirstReduction(p);  // before checks_by_range's branches
  // Index tensors the program only reads: their checks decided once per call (checks_by_range.hpp).
  std::set<std::string> readOnly;
  for (auto& t : p.tensors) readOnly.insert(t.name);
  for (auto& n : p.nests)
    for (auto& w : tensorsWritten(n)) readOnly.erase(w);
  const bool rangeChecks = target.kind == target::Kind::Cpu && target.ranks <= 1;
  for (size_t k = 0; k < p.nests.size(); ++k) {
    StmtP& n = p.nests[k];
    auto run = [&](const std::string& name, const std::function<StmtP(const StmtP&)>& pass) {
      n = log ? log->run(name, static_cast<int>(k), n, pass) : pass(n);
    };
    if (rangeChecks)
      run("checks_by_range", [&](const StmtP& s) { return versionChecksByRange(s, p.tensors, readOnly, names); });
    run("hoist_invariant_checks", hoistInvariantChecks);
    run("branches_to_selects", branchesToSelects);
    run("narrow_float_conversions", narrowFloatConversions);
    run("unique_statement_ids", uniqueStatementIds);  // nests of front ends that no primitive touched
    const StmtP asScheduled = n;
    run("reduction_init", initLocalsAtFirstReduction);
    run("carried_dependences", markCarriedDependences);  // on the loops as scheduled, before accumulators rewrite them
    run("parallel_reductions",
        [&](const StmtP& s) { return makeParallelReductions(s, asScheduled, p.tensors, names, analysisCacheDir); });
    run("local_boxes", [&](const StmtP& s) { return storeLocalBoxes(s, p.tensors); });
    run("unique_statement_ids", uniqueStatementIds);  // the statements lowering added; the plans name statements by id
    run("single_iteration_loops", inlineSingleIterationLoops);
    for (auto& pass : targetPasses(target.kind))  // then the target's own
      run(pass.name, [&](const StmtP& s) { return pass.run(s, p, target); });
    if (target.ranks <= 1)  // after every pass that asks the dependence analysis (the ranks' exchanges ask it below)
      run("row_checks_once", rowChecksOnce);
  }
  // Several MPI ranks: exchanges between the steps, then each distributed loop bound to its rank's block.
  if (target.kind == target::Kind::Cpu && target.ranks > 1) {
    distributeRowChecks(p);
    p = planExchangesOnAGrid(p, target.ranks, target.rankGridRows);
    findRowsByIndex(p);
    p = boundToRanks(p);
  }
  std::string wrong = verify(p);
  if (!wrong.empty()) throw InternalError("lowering made ill-formed IR: " + wrong);
  return p;
}

}  // namespace teml::lowering
