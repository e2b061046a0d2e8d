// TeML's loop transformations, each translated to the schedule::Schedule
// primitive that checks and applies it; loops named by level or iterator.
#include "frontend/teml/replacements.hpp"
#include "ir/mutator.hpp"
#include "pipeline/teml_replay.hpp"
#include "schedule/nest_path.hpp"
#include "schedule/primitives.hpp"

namespace teml::pipeline {

using ir::StepArg;
using ir::StmtP;
using ir::UserStep;

StmtP TemlReplay::transformation(const UserStep& c) {
  try {
    return transformationChecked(c);
  } catch (const schedule::ScheduleError& e) {  // a refusal, or a level the nest does not have
    fail(c.loc, e.what());
  }
}

StmtP TemlReplay::transformationChecked(const UserStep& c) {
  const std::string& f = c.primitive;
  if (f == "replace_array") return replaceArray(c);
  if (f == "auto_schedule") {
    // The automatic schedule of what the steps before left alone (a loop
    // already on threads or in lanes keeps its mark).
    arity(c.args, f, 1, 1, "auto_schedule(l)");
    StmtP l = loopArg(c.args[0], f);
    return autoSchedule(l, c.args[0].written, c.results.at(0));
  }
  const schedule::Primitive* prim = schedule::temlPrimitive(f);
  if (!prim) throw InternalError("unknown TeML loop expression '" + f + "'");
  std::vector<StepArg> args = c.args;
  if (f == "interchange" && args.size() == 2 && args[1].kind == StepArg::Kind::List && args[1].items.size() == 2)
    args = {args[0], args[1].items[0], args[1].items[1]};  // interchange(l, [level1, level2])
  size_t most = prim->params.size() + 1, least = most - prim->optional;
  arity(args, f, least, most, prim->temlUsage);
  StmtP l = loopArg(args[0], f);
  schedule::Step step{prim->name};
  step.line = c.loc.line;
  for (size_t k = 1; k < args.size(); ++k) argument(prim->params[k - 1], args[k], f, l, step);
  for (size_t k = args.size(); k < most; ++k)  // a left-out scope: the target's default, if it has one
    if (prim->params[k - 1] == schedule::Param::ThreadSchedule)
      if (auto problem = schedule::parallelScopeProblem("", options_.target.kind); !problem.empty()) fail(c.loc, problem);
  StmtP result = schedule::applyStep(schedule_, l, step).result;
  if (prim->name == "distribute") ir::recordDistributeCall(result, c.loc, program_.distribution);
  return result;
}

void TemlReplay::argument(schedule::Param param, const StepArg& a, const std::string& f, const StmtP& nest,
                          schedule::Step& step) {
  using schedule::Param;
  switch (param) {
    case Param::Loop: step.loops.push_back(loopAt(nest, a, f)); return;
    case Param::Loops:
      if (a.kind != StepArg::Kind::List) fail(a.loc, f + ": expected a list of levels such as [i, k, j]");
      for (auto& k : a.items) step.loops.push_back(loopAt(nest, k, f));
      return;
    case Param::Level: step.numbers.push_back(level(a, f)); return;
    case Param::Depth: {
      int64_t r = intArg(a, f);
      if (r < 0 || r > 1000) fail(a.loc, f + ": level " + std::to_string(r) + " does not exist");
      step.numbers.push_back(r);
      return;
    }
    case Param::Integer: step.numbers.push_back(intArg(a, f)); return;
    case Param::Dimension: step.numbers.push_back(dimension(a, f)); return;
    case Param::Dimensions:
      if (a.kind != StepArg::Kind::List) fail(a.loc, f + ": expected a list of dimensions such as [2, 1]");
      for (auto& k : a.items) step.numbers.push_back(dimension(k, f));
      return;
    case Param::Tensor: step.word = tensorArg(a, f); return;
    case Param::Copy: step.word = localTensorArg(a, f); return;
    case Param::ThreadSchedule: step.word = threadSchedule(a); return;
    case Param::MemType: {
      std::string word = a.kind == StepArg::Kind::Text ? a.text : a.written;
      if (!ir::memKindNamed(word)) fail(a.loc, f + ": the memory type is \"gpu/shared\", \"gpu/local\", \"gpu/global\" or \"cpu\"");
      step.mem = word;
      return;
    }
    case Param::Nest: step.nests.push_back(loopArg(a, f)); return;
  }
}

StmtP TemlReplay::replaceArray(const UserStep& c) {
  // The front end resolved the new layout: old, new, the permutation (old
  // dimension k is new's sigma[k]) and whether new is a copy.
  const std::string& f = c.primitive;
  StmtP l = loopArg(c.args.at(0), f);
  int r = level(c.args.at(1), f);
  const std::string& old = c.args.at(2).text;
  const ir::TensorDecl* replacement = program_.find(c.args.at(3).text);
  std::vector<int> sigma;
  for (auto& d : c.args.at(4).items) sigma.push_back(static_cast<int>(d.number));
  bool physical = c.args.at(5).number != 0;
  replacements_.push_back(teml_lang::Replacement{old, replacement->name, !physical, c.loc});
  return schedule_.replaceArray(l, r, old, *replacement, sigma, physical);
}

void TemlReplay::arity(const std::vector<StepArg>& args, const std::string& f, size_t lo, size_t hi,
                       const std::string& usage) {
  if (args.size() < lo || args.size() > hi) fail(callLoc_, f + " takes " + usage);
}

StmtP TemlReplay::loopArg(const StepArg& a, const std::string& what) {
  if (a.written.empty()) fail(a.loc, what + ": expected an identifier");
  if (a.kind == StepArg::Kind::Name) fail(a.loc, "'" + a.written + "' is not defined");
  if (a.kind == StepArg::Kind::Nest) {
    currentNest_ = values_.at(a.text);  // where level arguments given as iterator names are looked up
    return currentNest_;
  }
  fail(a.loc, what + ": '" + a.written + "' is " + a.what + ", not a loop nest" +
                  (a.what == "an assignment" ? " (build it first)" : ""));
}

int64_t TemlReplay::intArg(const StepArg& a, const std::string& what) {
  if (a.kind != StepArg::Kind::Number) fail(a.loc, what + ": expected an integer");
  return a.number;
}

int TemlReplay::level(const StepArg& a, const std::string& what) {
  if (!a.written.empty() && currentNest_) {
    int depth = schedule::perfectDepth(currentNest_);
    auto chain = schedule::loopsToLevel(currentNest_, std::max(depth, 1), what);
    for (size_t k = 0; k < chain.size(); ++k)
      if (chain[k]->var == a.written) return static_cast<int>(k + 1);
    std::string have;
    for (auto* f : chain) have += (have.empty() ? "" : ", ") + f->var;
    fail(a.loc, what + ": no loop over '" + a.written + "' among the nest's levels (" + have + ")");
  }
  return dimension(a, what);
}

std::string TemlReplay::loopAt(const StmtP& nest, const StepArg& a, const std::string& what) {
  // An iterator's name: the first loop over it in program order, outermost
  // first (its level in a perfect nest; in a nest that an unroll-and-jam or
  // separate_tail split, the loop that kept its place, not the copies after it).
  // A quoted id names any loop, copies too (`"L1.2#2"`, as listings show it).
  if (a.kind == StepArg::Kind::Text) {
    bool found = false;
    ir::forEachStmt(nest, [&](const StmtP& s) { found = found || (s->kind == ir::StmtKind::For && s->id == a.text); });
    if (!found) fail(a.loc, what + ": no loop '" + a.text + "' in this nest");
    return a.text;
  }
  if (!a.written.empty()) {
    std::string id;
    ir::forEachStmt(nest, [&](const StmtP& s) {
      if (id.empty() && s->kind == ir::StmtKind::For && s->as<ir::For>().var == a.written) id = s->id;
    });
    if (!id.empty()) return id;
  }
  int r = level(a, what);
  return schedule::loopsToLevel(nest, r, what)[r - 1]->id;
}

int TemlReplay::dimension(const StepArg& a, const std::string& what) {
  int64_t v = intArg(a, what);
  if (v < 1 || v > 1000) fail(a.loc, what + ": level " + std::to_string(v) + " does not exist (levels count from 1)");
  return static_cast<int>(v);
}

std::string TemlReplay::tensorArg(const StepArg& a, const std::string& what) {
  if (a.written.empty()) fail(a.loc, what + ": expected an identifier");
  if (a.kind == StepArg::Kind::Name) fail(a.loc, "'" + a.written + "' is not defined");
  if (a.kind != StepArg::Kind::Tensor)
    fail(a.loc, what + ": '" + a.written + "' is " + a.what + ", not a declared tensor");
  return a.text;
}

std::string TemlReplay::localTensorArg(const StepArg& a, const std::string& what) {
  if (a.kind == StepArg::Kind::Name) return a.written;
  return tensorArg(a, what);
}

std::string TemlReplay::threadSchedule(const StepArg& a) {
  std::string word = a.kind == StepArg::Kind::Text ? a.text : a.written;
  if (auto problem = schedule::parallelScopeProblem(word, options_.target.kind); !problem.empty()) fail(a.loc, problem);
  return word;
}

}  // namespace teml::pipeline
