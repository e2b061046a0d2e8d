// The TeML schedule stage: the loop values the steps make, codegen, the
// automatic schedule, and the whole-program checks after the last step.
#include "pipeline/teml_schedule.hpp"

#include <algorithm>

#include "autoschedule/auto_fuse.hpp"
#include "autoschedule/auto_schedule.hpp"
#include "diag/timing.hpp"
#include "frontend/teml/ast.hpp"
#include "ir/mutator.hpp"
#include "ir/printer.hpp"
#include "pipeline/teml_replay.hpp"

namespace teml::pipeline {

using ir::StmtP;

namespace {

// Whether a transformation made any part of `nest` (--auto leaves those alone).
bool touched(const StmtP& nest) {
  bool made = false;
  ir::forEachStmt(nest, [&](const StmtP& s) { made = made || !s->made.primitive.empty(); });
  return made;
}

// Codegen builds an assignment it is given into a value of its own, named
// so that no program can name it.
bool builtForCodegen(const ir::UserStep& step) { return step.results.at(0).starts_with("%"); }

}  // namespace

void TemlReplay::run(const std::vector<ir::UserStep>& steps) {
  const ir::UserStep* lastCodegen = nullptr;  // after it no nest reads a tensor: intermediates may become local
  for (auto& step : steps)
    if (step.primitive == "codegen") lastCodegen = &step;
  for (auto& step : steps) {
    callLoc_ = step.loc;
    if (step.primitive == "codegen") {
      codegen(step, &step == lastCodegen);
      continue;
    }
    StmtP nest = step.primitive == "build" ? step.nest : transformation(step);
    if (step.primitive != "replace_array" && !(step.primitive == "build" && builtForCodegen(step)))
      refuseHalfReplaced(step.loc, step.primitive, nest);
    values_[step.results.at(0)] = nest;
  }
  finish();
}

TemlStats TemlReplay::stats() const {
  TemlStats s = autoStats_;
  s.analysisSeconds = schedule_.stats().analysisSeconds;
  s.checks = schedule_.stats().checks;
  return s;
}

void TemlReplay::codegen(const ir::UserStep& step, bool last) {
  std::vector<StmtP> nests;
  std::vector<std::string> names;
  for (auto& a : step.args) {
    nests.push_back(values_.at(a.text));
    names.push_back(a.written);
  }
  bool untouched = std::none_of(nests.begin(), nests.end(), [](const StmtP& n) { return touched(n); });
  if (options_.autoSchedule && untouched && nests.size() > 1 && last) {
    nests = autoScheduleList(nests, names);
  } else if (options_.autoSchedule) {
    for (size_t k = 0; k < nests.size(); ++k)
      if (!touched(nests[k])) nests[k] = autoSchedule(nests[k], names[k], "");
  }
  for (size_t k = 0; k < nests.size(); ++k) {
    try {
      schedule_.admit(nests[k]);
    } catch (const schedule::ScheduleError& e) {
      fail(step.args[std::min(k, step.args.size() - 1)].loc, e.what());
    }
    program_.nests.push_back(nests[k]);
  }
}

std::vector<StmtP> TemlReplay::autoScheduleList(const std::vector<StmtP>& nests, const std::vector<std::string>& names) {
  // Fused with local intermediates, the nests no longer write and read back
  // what they pass on: taken whenever it applies (helm, interp and blur all
  // gain; bench/results.md). Vectors along rows or elements in lanes are
  // measured against each other; without measuring, preferredVectors.
  using autoschedule::FusedVectors;
  auto start = Clock::now();
  std::vector<autoschedule::FusedNests> candidates;
  FusedVectors first = autoschedule::preferredVectors(nests, options_.target);
  FusedVectors second = first == FusedVectors::Rows ? FusedVectors::Lanes : FusedVectors::Rows;
  std::set<std::string> kept = options_.inputs;
  kept.insert(options_.outputs.begin(), options_.outputs.end());
  for (FusedVectors v : {first, second})
    if (auto f = autoschedule::autoFuse(schedule_, nests, program_, kept, options_.target, v))
      candidates.push_back(std::move(*f));
  size_t choice = 0;
  if (options_.tuner && candidates.size() > 1) {
    std::string key = "fused nests, vectors along rows or elements in lanes:";
    for (auto& n : nests) key += "\n" + ir::toString(n, true);
    std::vector<StmtP> bodies;
    for (auto& c : candidates) bodies.push_back(c.body);
    choice = std::min(options_.tuner->fastest(program_, key, bodies), candidates.size() - 1);
  }
  StmtP body =
      candidates.empty() ? nullptr : autoschedule::replayFused(schedule_, nests, candidates[choice], options_.target);
  autoStats_.autoSeconds += secondsSince(start);
  if (body) {
    autoStats_.autoNests += static_cast<int>(nests.size());
    for (auto& line : autoschedule::temlLines(candidates[choice], names)) autoStats_.autoSteps.push_back(line);
    return {body};
  }
  std::vector<StmtP> out;
  for (size_t k = 0; k < nests.size(); ++k) out.push_back(autoSchedule(nests[k], names[k], ""));
  return out;
}

StmtP TemlReplay::autoSchedule(const StmtP& nest, const std::string& name, const std::string& result) {
  auto start = Clock::now();
  auto chosen = autoschedule::autoSchedule(schedule_, nest, options_.target, options_.tuner, &program_);
  autoStats_.autoSeconds += secondsSince(start);
  ++autoStats_.autoNests;
  for (auto& line : autoschedule::temlLines(chosen.steps, name, result)) autoStats_.autoSteps.push_back(line);
  return chosen.body;
}

void TemlReplay::refuseHalfReplaced(SourceLoc loc, const std::string& what, const StmtP& nest) {
  auto used = ir::tensorsAccessed(nest);
  for (auto& r : replacements_)
    if (r.isVirtual && used.count(r.old) && used.count(r.replacement))
      fail(loc, what + ": this nest accesses both '" + r.old + "' and its virtual transposition '" + r.replacement +
                    "' (replace_array at line " + std::to_string(r.loc.line) +
                    "); replace the remaining accesses of '" + r.old + "' first");
}

void TemlReplay::finish() {
  teml_lang::checkReplacements(replacements_, program_);
  // A virtually transposed tensor lives on only as its transposition, which
  // takes its place in the list (inputs keep their order, and with it the
  // values --random gives them).
  auto& ts = program_.tensors;
  for (auto& r : replacements_) {
    auto at = [&](const std::string& n) {
      return std::find_if(ts.begin(), ts.end(), [&](const ir::TensorDecl& t) { return t.name == n; });
    };
    if (!r.isVirtual || at(r.old) == ts.end()) continue;
    *at(r.old) = *at(r.replacement);
    ts.erase(std::find_if(at(r.replacement) + 1, ts.end(),
                          [&](const ir::TensorDecl& t) { return t.name == r.replacement; }));
    program_.initialValues.erase(r.old);
  }
  // Local tensors live in their loops, not in the program's buffers.
  auto locals = schedule_.localTensors();
  std::erase_if(program_.tensors, [&](const ir::TensorDecl& t) { return locals.count(t.name) > 0; });
  for (auto& name : locals) program_.initialValues.erase(name);
}

ir::Program scheduleTeml(teml_lang::TemlProgram written, const TemlOptions& options, TemlStats* stats) {
  ir::Program program = std::move(written.program);
  {
    TemlReplay replay(program, options);
    replay.run(written.schedule.steps);
    if (stats) *stats = replay.stats();
  }
  ir::assignCallerRoles(program);  // the nests are the replay's
  return program;
}

ir::Program compileTeml(const std::string& source, const TemlOptions& options) {
  return scheduleTeml(teml_lang::evaluateTeml(teml_lang::parseTeml(source), teml_lang::TemlOptions{options.sizes}),
                      options);
}

}  // namespace teml::pipeline
