#include "autoschedule/auto_fuse.hpp"

#include <algorithm>

#include "autoschedule/auto_state.hpp"
#include "autoschedule/loop_queries.hpp"
#include "ir/accesses.hpp"
#include "ir/mutator.hpp"

namespace teml::autoschedule {

using namespace ir;

namespace {

// The least part of an input, per element, worth copying in and prefetching
// (64 doubles: eight cache lines).
constexpr int64_t kCopiedPerElement = 64;


// Intermediates: tensors a nest writes and a later nest reads (what no nest
// reads is a result).
std::vector<std::string> intermediates(const std::vector<StmtP>& nests) {
  std::vector<std::string> out;
  for (size_t k = 0; k + 1 < nests.size(); ++k)
    for (auto& t : tensorsWritten(nests[k])) {
      bool read = false;
      for (size_t later = k + 1; later < nests.size(); ++later)
        for (auto& a : accessesOf(nests[later])) read = read || (a.kind == AccessKind::Read && a.tensor == t);
      if (read && std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
    }
  return out;
}

// Every store and update of `tensor` in `body` is at [element][...].
bool writtenAtElement(const StmtP& body, const std::string& tensor, const std::string& element) {
  bool ok = true;
  forEachStmt(body, [&](const StmtP& s) {
    const std::vector<ExprP>* at = nullptr;
    if (s->kind == StmtKind::Store && s->as<Store>().tensor == tensor) at = &s->as<Store>().indices;
    if (s->kind == StmtKind::Reduce && s->as<Reduce>().tensor == tensor) at = &s->as<Reduce>().indices;
    if (at) ok = ok && !at->empty() && isVar(at->front(), element);
  });
  return ok;
}

// The largest tensor the fused loop only reads, and only at the element's
// first index (u[e][..]): its part is copied in per iteration while the
// next iteration's is fetched.
std::string streamedInput(const StmtP& body, const std::string& element, const Program& program,
                          const std::set<std::string>& written) {
  std::map<std::string, bool> plain;  // tensor -> every load indexes it [element][...]
  forEachExprIn(body, [&](const ExprP& e) {
    if (e->kind != ExprKind::Load) return;
    auto& l = e->as<Load>();
    bool ok = !l.indices.empty() && isVar(l.indices[0], element);
    for (size_t k = 1; ok && k < l.indices.size(); ++k) ok = !usesVar(l.indices[k], element);
    auto [it, fresh] = plain.emplace(l.tensor, ok);
    if (!fresh) it->second = it->second && ok;
  });
  std::string best;
  int64_t largest = 0;
  for (auto& [tensor, ok] : plain) {
    const TensorDecl* decl = program.find(tensor);
    if (!ok || !decl || written.count(tensor)) continue;
    // A copy of a few elements per iteration costs more than it saves.
    if (decl->shape.empty() || decl->elementCount() / decl->shape[0] < kCopiedPerElement) continue;
    if (decl->elementCount() > largest) best = tensor, largest = decl->elementCount();
  }
  return best;
}

// The nests fused one after another over their outermost loops (null: refused).
StmtP fuseAtOuterLoops(schedule::Schedule& schedule, const std::vector<StmtP>& nests) {
  StmtP fused = nests[0];
  try {
    for (size_t k = 1; k < nests.size(); ++k) fused = schedule.fuseOuter(fused, nests[k], 1);
  } catch (const schedule::ScheduleError&) {
    return nullptr;
  }
  return fused;
}

}  // namespace

std::optional<FusedNests> autoFuse(const schedule::Schedule& schedule, const std::vector<StmtP>& nests,
                                   const Program& program, const std::set<std::string>& kept,
                                   const target::Target& target, FusedVectors vectors) {
  if (nests.size() < 2 || nests[0]->kind != StmtKind::For) return std::nullopt;
  const std::string element = nests[0]->as<For>().var;
  schedule::Schedule trial = schedule.checked();
  FusedNests fused;
  std::vector<StmtP> bodies;
  for (auto& nest : nests) {
    AutoState s(trial, nest, target);
    if (vectors == FusedVectors::Rows) vectorRows(s, program);
    else elementLanes(s);
    bodies.push_back(s.body);
    fused.nestSteps.push_back(s.steps);
  }
  // Fused as TeML's fuse_outer(f, m, 1) fuses, so that the steps print and replay as TeML.
  StmtP fusedNest = fuseAtOuterLoops(trial, bodies);
  if (!fusedNest) return std::nullopt;
  AutoState group(trial, fusedNest, target);
  const std::string outer = fusedNest->id;
  const bool lanes = vectors == FusedVectors::Lanes;
  auto written = tensorsWritten(group.body);
  std::vector<std::string> local;
  for (auto& t : intermediates(nests))
    if (!kept.count(t) && program.find(t) && group.tryStep({"local", {outer}, {}, t})) local.push_back(t);
  if (local.empty()) return std::nullopt;
  group.tryStep({"parallelize", {outer}});
  if (lanes)
    for (auto& t : local) elementsLast(group, t, program.find(t)->shape.size());
  std::string input = streamedInput(group.body, element, program, written);
  if (!input.empty()) {
    AutoState::Saved before = group.save();
    std::string copy = copyPerIteration(group, outer, input);
    if (copy.empty() || (lanes && !elementsLast(group, copy, program.find(input)->shape.size())) ||
        !group.tryStep({"prefetch", {}, {}, copy}))
      group.restore(before);
  }
  // Results in lanes are assembled in a block (in the tensor's own layout,
  // so that it leaves as one contiguous run of non-temporal stores); the
  // block of a result that still holds its starting zeros starts as zeros
  // instead of being read (cache_zeroed).
  for (auto& t : written) {
    if (!lanes || std::find(local.begin(), local.end(), t) != local.end() || !writtenAtElement(group.body, t, element))
      continue;
    if (copyPerIteration(group, outer, t, "cache_zeroed").empty()) copyPerIteration(group, outer, t);
  }
  fused.body = group.body;
  fused.steps = group.steps;
  return fused;
}

StmtP replayFused(schedule::Schedule& schedule, const std::vector<StmtP>& nests, const FusedNests& fused,
                  const target::Target& target) {
  std::vector<StmtP> bodies;
  for (size_t k = 0; k < nests.size(); ++k) {
    AutoState s(schedule, nests[k], target);
    if (!s.replay(fused.nestSteps[k])) return nullptr;
    bodies.push_back(s.body);
  }
  StmtP fusedNest = fuseAtOuterLoops(schedule, bodies);
  if (!fusedNest) return nullptr;
  AutoState group(schedule, fusedNest, target);
  return group.replay(fused.steps) ? group.body : nullptr;
}

std::vector<std::string> temlLines(const FusedNests& fused, const std::vector<std::string>& names) {
  std::vector<std::string> lines, current;
  for (size_t k = 0; k < names.size(); ++k) {
    if (fused.nestSteps[k].empty()) {
      current.push_back(names[k]);
      continue;
    }
    std::string result = names[k] + "_auto";
    for (auto& line : temlLines(fused.nestSteps[k], names[k], result)) lines.push_back(line);
    current.push_back(result);
  }
  std::string name = names[0] + "_fused";
  lines.push_back("# " + name + ": the nests fused over their outer loop, then " + std::to_string(fused.steps.size()) +
                  " steps");
  std::string in = current[0];
  int made = 0;
  auto next = [&] { return name + "_" + std::to_string(++made); };
  for (size_t k = 1; k < current.size(); ++k) {
    std::string out = next();
    lines.push_back(out + " = fuse_outer(" + in + ", " + current[k] + ", 1)");
    in = out;
  }
  for (auto& step : fused.steps) {
    std::string out = next();
    lines.push_back(temlText(step, in, out));
    in = out;
  }
  lines.push_back("codegen(" + in + ")");
  return lines;
}

}  // namespace teml::autoschedule
