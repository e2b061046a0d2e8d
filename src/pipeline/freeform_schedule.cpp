// Replays a free-form schedule: each step a call of schedule::Schedule on the
// entry's one nest; loops named by label or by a handle an earlier step
// returned.
#include "pipeline/freeform_schedule.hpp"

#include <cctype>
#include <iostream>
#include <map>
#include <set>

#include "autoschedule/auto_schedule.hpp"
#include "diag/timing.hpp"
#include "schedule/primitives.hpp"

namespace teml::pipeline {

using ir::StepArg;
using ir::UserStep;

namespace {

[[noreturn]] void fail(SourceLoc loc, const std::string& m) { throw UserError(loc, m); }

// The automatic schedule of what `body` leaves to it, its steps and time
// kept in `out` (-v).
void autoScheduleInto(schedule::Schedule& sch, ir::StmtP& body, const target::Target& target,
                      freeform::FreeformProgram* out) {
  auto start = Clock::now();
  auto chosen = autoschedule::autoSchedule(sch, body, target);
  out->autoSeconds += secondsSince(start);
  body = chosen.body;
  for (auto& step : chosen.steps) out->autoSteps.push_back(schedule::freeformText(step));
  out->autoScheduled = true;
}

// A primitive's message names it as the schedule library does ("stripmine:
// ..."); the user wrote `split`, so the message says that.
std::string inUsersWords(const std::string& message, const std::string& written) {
  size_t colon = message.find(": ");
  if (colon == std::string::npos || colon == 0) return message;
  for (size_t k = 0; k < colon; ++k)
    if (!std::islower(static_cast<unsigned char>(message[k])) && message[k] != '_') return message;
  return written + message.substr(colon);
}

// What a step returned: the ids of the loops it made (a tuple when more than one).
struct Handles {
  std::vector<std::string> ids;
};

class Replay {
 public:
  Replay(schedule::Schedule& s, ir::StmtP& body, const target::Target& target, freeform::FreeformProgram* out)
      : sch_(s), body_(body), target_(target), out_(out) {}

  void run(const std::vector<UserStep>& steps) {
    for (auto& step : steps) {
      Handles h;
      try {
        h = primitive(step);
      } catch (const schedule::ScheduleError& e) {
        fail(step.loc, inUsersWords(e.what(), step.primitive));
      }
      bind(step, h);
    }
  }

 private:
  void bind(const UserStep& step, const Handles& h) {
    if (step.results.size() == 1) {
      names_[step.results[0]] = h;
      return;
    }
    if (step.results.size() > 1 && h.ids.size() != step.results.size())
      fail(step.resultsLoc, "cannot assign this in a schedule (names, or as many names as the primitive returns)");
    for (size_t k = 0; k < step.results.size(); ++k) names_[step.results[k]] = Handles{{h.ids[k]}};
  }

  // The loops a handle stands for (none: not a handle).
  std::vector<std::string> handle(const StepArg& a) {
    auto it = a.kind == StepArg::Kind::Name ? names_.find(a.text) : names_.end();
    return it == names_.end() ? std::vector<std::string>{} : it->second.ids;
  }
  std::string loop(const StepArg& a) {
    if (a.kind == StepArg::Kind::Text) return a.text;
    if (auto ids = handle(a); ids.size() == 1) return ids[0];
    fail(a.loc, "expected a loop: a label (a string) or a handle");
  }
  // A list of loops: written as a list, or a handle of several loops.
  std::vector<std::string> loops(const StepArg& a, const std::string& p) {
    std::vector<std::string> out;
    if (a.kind == StepArg::Kind::List)
      for (auto& item : a.items) out.push_back(loop(item));
    else if (handle(a).size() > 1)
      out = handle(a);
    else
      fail(a.loc, p + " takes a list of loops");
    return out;
  }
  int64_t integer(const StepArg& a, SourceLoc loc) {
    if (a.kind != StepArg::Kind::Number) fail(loc, "expected an integer");
    return a.number;
  }

  Handles primitive(const UserStep& c) {
    const std::string& p = c.primitive;
    std::vector<StepArg> args = c.args;
    std::set<std::string> allowed;
    if (p == "split") allowed = {"factor", "nparts"};
    for (auto& [k, v] : c.keywords)
      if (!allowed.count(k)) fail(c.loc, p + "() takes no keyword argument '" + k + "'");
    if (p == "auto_schedule") return autoSchedule(c);
    const schedule::Primitive* prim = schedule::freeformPrimitive(p);
    if (!prim) fail(c.primitiveLoc, "unknown schedule primitive '" + p + "'");
    for (auto& [k, v] : c.keywords) {
      if (auto picked = schedule::freeformPrimitive(p, k)) prim = picked;  // split(loop, nparts=n)
      args.push_back(v);
    }
    size_t most = prim->params.size(), least = most - prim->optional;
    if (args.size() < least || args.size() > most) fail(c.loc, p + " takes " + prim->freeformUsage);
    schedule::Step step{prim->name};
    step.line = c.loc.line;
    for (size_t k = 0; k < args.size(); ++k) argument(prim->params[k], args[k], p, step);
    for (size_t k = args.size(); k < most; ++k)  // a left-out scope: the target's default, if it has one
      if (prim->params[k] == schedule::Param::ThreadSchedule)
        if (auto problem = schedule::parallelScopeProblem("", target_.kind); !problem.empty()) fail(c.loc, problem);
    schedule::Schedule::Applied r = schedule::applyStep(sch_, body_, step);
    body_ = r.result;
    if (prim->name == "distribute") ir::recordDistributeCall(body_, c.loc, out_->program.distribution);
    switch (prim->returns) {
      case schedule::Returns::LoopAndInner: return Handles{{r.created.at(0), step.loops.at(0)}};
      case schedule::Returns::FirstLoop: return Handles{{step.loops.at(0)}};
      case schedule::Returns::Created: break;
    }
    return Handles{r.created};
  }

  // The argument `a` for the parameter `param` of the primitive `p`, into `step`.
  void argument(schedule::Param param, const StepArg& a, const std::string& p, schedule::Step& step) {
    using schedule::Param;
    switch (param) {
      case Param::Loop: step.loops.push_back(loop(a)); return;
      case Param::Loops:
        for (auto& l : loops(a, p)) step.loops.push_back(l);
        return;
      case Param::Level:
      case Param::Depth:
      case Param::Integer:
      case Param::Dimension: step.numbers.push_back(integer(a, a.loc)); return;
      case Param::Dimensions:
        if (a.kind != StepArg::Kind::List) fail(a.loc, p + ": expected a list of dimensions such as [2, 1]");
        for (auto& d : a.items) step.numbers.push_back(integer(d, d.loc));
        return;
      case Param::Tensor:
      case Param::Copy:
        if (a.kind != StepArg::Kind::Text) fail(a.loc, p + ": name the tensor as a string");
        step.word = a.text;
        return;
      case Param::ThreadSchedule: {
        step.word = a.kind == StepArg::Kind::Text ? a.text : a.written;
        if (auto problem = schedule::parallelScopeProblem(step.word, target_.kind); !problem.empty()) fail(a.loc, problem);
        return;
      }
      case Param::MemType:
        if (a.kind != StepArg::Kind::Text || !ir::memKindNamed(a.text))
          fail(a.loc, p + ": the memory type is \"gpu/shared\", \"gpu/local\", \"gpu/global\" or \"cpu\"");
        step.mem = a.text;
        return;
      case Param::Nest: break;
    }
    throw InternalError("a free-form primitive takes another nest: " + p);
  }

  // The automatic schedule of what the steps before left alone.
  Handles autoSchedule(const UserStep& c) {
    if (!c.args.empty()) fail(c.loc, "auto_schedule takes auto_schedule(): no arguments");
    autoScheduleInto(sch_, body_, target_, out_);
    return Handles{};
  }

  schedule::Schedule& sch_;
  ir::StmtP& body_;
  const target::Target& target_;
  freeform::FreeformProgram* out_;
  std::map<std::string, Handles> names_;
};

}  // namespace

namespace {

// The target a schedule for every target was written for, read from its
// steps: a parallelize with a GPU scope, or a gpu/ memory type, pins it to
// the GPU; a parallelize with no scope or a thread schedule to the CPU.
std::optional<target::Kind> pinnedTarget(const ir::UserSchedule& s, std::string* why) {
  std::optional<target::Kind> pinned;
  for (auto& step : s.steps) {
    std::optional<target::Kind> k;
    std::string what;
    if (step.primitive == "parallelize") {
      std::string word = step.args.size() > 1 ? (step.args[1].kind == StepArg::Kind::Text ? step.args[1].text
                                                                                           : step.args[1].written)
                                              : "";
      k = ir::gpuScopeNamed(word) ? target::Kind::Cuda : target::Kind::Cpu;
      what = word.empty() ? "parallelizes with no GPU scope" : "parallelizes with \"" + word + "\"";
    }
    if (step.primitive == "set_mem_type" && step.args.size() > 1 && step.args[1].text.rfind("gpu/", 0) == 0) {
      k = target::Kind::Cuda;
      what = "puts a tensor in " + step.args[1].text;
    }
    if (!k) continue;
    if (pinned && *pinned != *k) return std::nullopt;  // both: the replay reports the step at fault
    if (!pinned) *why = "line " + std::to_string(step.loc.line) + " " + what;
    pinned = k;
  }
  return pinned;
}

}  // namespace

freeform::FreeformProgram scheduleFreeform(freeform::FreeformProgram p, const freeform::FreeformOptions& options) {
  // The schedule reads the program's tensors; the nest is its one statement.
  ir::StmtP body = p.program.nests.at(0);
  p.program.nests.clear();
  schedule::Schedule sch(p.program, schedule::ScheduleOptions{options.checkLegality, options.analysisCacheDir});
  const ir::UserSchedule* written = &p.schedule;  // the target's own schedule, else the one for every target
  for (auto& t : p.targetSchedules)
    if (t.target == target::kindName(options.target.kind)) written = &t;
  // A schedule for every target whose steps are another target's (a CPU
  // schedule under --target cuda) is that target's: this one has none.
  static const ir::UserSchedule none;
  std::string why;
  if (written == &p.schedule && written->given)
    if (auto pinned = pinnedTarget(*written, &why); pinned && *pinned != options.target.kind) {
      p.scheduleNote = "the file's schedule is for the " + std::string(*pinned == target::Kind::Cuda ? "GPU" : "CPU") +
                       " (" + why + "); the " +
                       target::kindName(options.target.kind) + " target has none of its own" +
                       (options.autoSchedule ? ", so it takes the automatic schedule" : "");
      written = &none;
    }
  if (written->given) Replay(sch, body, options.target, &p).run(written->steps);
  if (!written->given && options.autoSchedule) autoScheduleInto(sch, body, options.target, &p);
  try {
    sch.admit(body);
  } catch (const schedule::ScheduleError& e) {
    fail({1, 1}, e.what());
  }
  p.analysisSeconds = sch.stats().analysisSeconds;
  p.program.nests = {body};
  if (!options.checkLegality) {  // --no-check: say what went unchecked, and what did not
    std::string steps;
    for (auto& what : sch.stats().unchecked)
      if (steps.find(what) == std::string::npos) steps += (steps.empty() ? "" : ", ") + what;
    std::cerr << "teml: warning: --no-check: "
              << (steps.empty() ? "no step needed a dependence check" : "applied without their dependence checks: " + steps)
              << "; races (parallelize, vectorize, distribute) are still checked\n";
  }
  return p;
}

freeform::FreeformProgram compileFreeform(const std::string& source, const freeform::FreeformOptions& options) {
  return scheduleFreeform(freeform::parseFreeform(source, options), options);
}

}  // namespace teml::pipeline
