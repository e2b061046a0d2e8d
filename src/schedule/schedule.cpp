#include "schedule/schedule.hpp"

#include <algorithm>
#include <set>

#include "analysis/concurrency_with_isl.hpp"
#include "analysis/legality.hpp"
#include "analysis/locals.hpp"
#include "diag/diagnostics.hpp"
#include "diag/timing.hpp"
#include "ir/mutator.hpp"
#include "ir/unique_iterators.hpp"
#include "ir/unique_statement_ids.hpp"
#include "ir/verify.hpp"
#include "schedule/provenance.hpp"
#include "schedule/transforms.hpp"

namespace teml::schedule {

using namespace ir;

StmtP Schedule::apply(const std::string& what, const std::vector<StmtP>& inputs, bool reorders,
                      const std::function<StmtP()>& transform, const StmtP* reorderedFrom,
                      const StmtP* reorderedTo) {
  StmtP result = recordProvenance(what, inputs, uniqueStatementIds(uniqueIterators(transform())));
  keepsLocals(what, inputs, result);
  if (std::string broken = verify(result, program_.tensors); !broken.empty())
    throw InternalError(what + " produced ill-formed IR: " + broken);
  if (reorders && reorderedFrom) checkReordering(what, *reorderedFrom, *reorderedTo);
  else if (reorders) checkReordering(what, inputs.size() == 1 ? inputs[0] : makeSeq(inputs), result);
  localsStaySound(what, result, reorderedFrom && reorderedTo ? std::vector<StmtP>{*reorderedFrom, *reorderedTo} : inputs);
  return result;
}

void Schedule::checkReordering(const std::string& what, const StmtP& before, const StmtP& after) {
  if (!options_.checkLegality) {
    stats_.unchecked.push_back(what);
    return;
  }
  auto t = Clock::now();
  analysis::Legality l = analysis::checkReordering(before, after, options_.analysisCacheDir);
  stats_.analysisSeconds += secondsSince(t);
  ++stats_.checks;
  if (!l.legal && l.violation.rfind("the dependence analysis could not decide", 0) == 0)
    throw ScheduleError(what + ": " + l.violation, Refusal::TooComplex);
  if (!l.legal) throw ScheduleError(what + " would " + l.violation, Refusal::Illegal);
}

// A transformation must keep every local tensor of the nests it transforms
// (the loop that owns it)...
void Schedule::keepsLocals(const std::string& what, const std::vector<StmtP>& inputs, const StmtP& result) {
  std::set<std::string> before;
  for (auto& in : inputs) {
    auto names = schedule::localTensors(in);
    before.insert(names.begin(), names.end());
  }
  auto after = schedule::localTensors(result);
  for (auto& n : before)
    if (!after.count(n))
      throw ScheduleError(what + " would remove the loop that '" + n + "' is local to (line " +
                          std::to_string(localLines_[n]) + "); make it local or cache it after this transformation");
}

// ... each still used within one iteration of its loop only.
void Schedule::localsStaySound(const std::string& what, const StmtP& result, const std::vector<StmtP>& changed) {
  std::set<std::string> locals;
  for (auto& l : localTensorsIn(result)) locals.insert(l.tensor.decl.name);
  if (locals.empty()) return;
  // Statements that own no local tensor and access none, before and after
  // the step, leave every local tensor's accesses and owners as they were.
  bool touched = false;
  for (auto& s : changed) {
    touched = touched || !localTensorsIn(s).empty();
    for (auto& t : tensorsAccessed(s)) touched = touched || locals.count(t);
  }
  if (!touched) return;
  if (!options_.checkLegality) stats_.unchecked.push_back(what + " (isl's condition on local tensors)");
  auto t = Clock::now();
  std::string problem = analysis::checkLocals(result, options_.checkLegality, options_.analysisCacheDir);
  stats_.analysisSeconds += secondsSince(t);
  if (!problem.empty()) throw ScheduleError(what + ": " + problem, Refusal::Illegal);
}

StmtP Schedule::interchangeN(const StmtP& l, int r, int64_t n) {
  return apply("interchange_n", {l}, true, [&] { return schedule::interchangeN(l, r, static_cast<int>(n)); });
}
StmtP Schedule::fuseOuter(const StmtP& a, const StmtP& b, int r) {
  return apply("fuse_outer", {a, b}, true, [&] { return schedule::fuseOuter(a, b, r); });
}
StmtP Schedule::fuseInner(const StmtP& l, int r) {
  return apply("fuse_inner", {l}, true, [&] { return schedule::fuseInner(l, r); });
}
StmtP Schedule::tile(const StmtP& l, int64_t factor) {
  return apply("tile", {l}, true, [&] { return schedule::tile(l, factor); });
}
StmtP Schedule::swap(const StmtP& l, int r, int a, int b) {
  return apply("swap", {l}, true, [&] { return schedule::swap(l, r, a, b); });
}
StmtP Schedule::asLib(const StmtP& l) {
  return apply("as_lib", {l}, false, [&] { return schedule::asLib(l, program_); });
}

StmtP Schedule::prefetch(const StmtP& l, const std::string& copy, int64_t distance) {
  return apply("prefetch", {l}, false, [&] { return schedule::prefetch(l, program_, copy, static_cast<int>(distance)); });
}
StmtP Schedule::varReorder(const StmtP& l, const std::string& tensor, const std::vector<int>& order) {
  return apply("var_reorder", {l}, false, [&] { return schedule::varReorder(l, tensor, order); });
}
StmtP Schedule::varSplit(const StmtP& l, const std::string& tensor, int dim, int64_t factor) {
  return apply("var_split", {l}, false, [&] { return schedule::varSplit(l, tensor, dim, factor); });
}
StmtP Schedule::varMerge(const StmtP& l, const std::string& tensor, int dim) {
  return apply("var_merge", {l}, false, [&] { return schedule::varMerge(l, tensor, dim); });
}
StmtP Schedule::replaceArray(const StmtP& l, int r, const std::string& old, const TensorDecl& replacement,
                             const std::vector<int>& sigma, bool physical) {
  return apply("replace_array", {l}, false,
               [&] { return schedule::replaceArray(l, r, old, replacement, sigma, physical); });
}

std::string Schedule::raceNote() const {
  if (options_.checkLegality) return "";
  return " (--no-check skips the dependence checks of steps that reorder iterations, not the race checks of "
         "parallelize, vectorize and distribute)";
}

void Schedule::admit(const StmtP& nest) {
  // Transformations may have been composed after parallelize/vectorize; the
  // final nest must still be free of races.
  checkScoping(nest, "codegen");
  checkParallelNesting(nest, "codegen");
  forEachStmt(nest, [&](const StmtP& s) {
    if (s->kind != StmtKind::For) return;
    auto& f = s->as<For>();
    if (!f.loopKind.concurrent()) return;
    // Loops proven by isl are proven again on the final nest: later
    // transformations may have changed what they carry.
    auto c = analysis::concurrencyOf(nest, f, f.loopKind.lanes(), false);
    if (!c.report.ok) throw ScheduleError("codegen: " + c.report.reason + raceNote(), Refusal::Illegal);
  });
  // A local tensor has no values outside its loop: no other nest may use it,
  // and its initial value is the one it had when it was made local. (A
  // tensor a nest defines is that nest's own, even where another nest
  // defines one of the same name.)
  auto used = tensorsAccessed(nest);
  for (auto& [name, owner] : localNests_)
    if (used.count(name) && program_.find(name))
      throw ScheduleError("codegen: '" + name + "' is local to a loop of another nest (line " +
                          std::to_string(localLines_[name]) + "); its values do not exist outside that loop");
  for (auto& name : schedule::localTensors(nest)) {
    if (!program_.find(name)) continue;
    for (auto& other : admitted_)
      if (tensorsAccessed(other).count(name))
        throw ScheduleError("codegen: '" + name + "' is local to a loop of this nest (line " +
                            std::to_string(localLines_[name]) + ") but an earlier nest uses it");
    if (localNests_.count(name)) throw ScheduleError("codegen: '" + name + "' is local to loops of two nests");
  }
  for (auto& [loop, l] : localTensorsIn(nest)) {
    if (!program_.find(l.decl.name)) continue;  // a cache's copy: its start is set by cache(...)
    auto init = program_.initialValues.find(l.decl.name);
    double v = init == program_.initialValues.end() ? 0 : init->second;
    if (v != l.init)
      throw ScheduleError("codegen: init of '" + l.decl.name + "' comes after local(...) made it local (line " +
                          std::to_string(localLines_[l.decl.name]) + "); initialize it first");
  }
  // A copy that starts as zeros stands for a tensor that must still hold them.
  for (auto& name : schedule::localTensors(nest)) {
    auto zeroed = zeroedCopies_.find(name);
    if (zeroed == zeroedCopies_.end()) continue;
    for (auto& other : admitted_)
      if (tensorsWritten(other).count(zeroed->second))
        throw ScheduleError("codegen: cache_zeroed (line " + std::to_string(localLines_[name]) + ") starts '" + name +
                            "' as zeros, but an earlier nest writes '" + zeroed->second + "'");
  }
  for (auto& name : schedule::localTensors(nest)) localNests_[name] = nest;
  admitted_.push_back(nest);
}

std::set<std::string> Schedule::localTensors() const {
  std::set<std::string> out;
  for (auto& [name, nest] : localNests_) out.insert(name);
  return out;
}

}  // namespace teml::schedule
