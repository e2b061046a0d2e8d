#include "autoschedule/step.hpp"

#include <functional>
#include <map>

namespace teml::autoschedule {

namespace {

using schedule::Schedule;

struct Primitive {
  std::string freeform;  // s.NAME(...)
  std::string teml;      // NAME(l, ...)
  std::function<Schedule::Applied(Schedule&, const ir::StmtP&, const Step&)> apply;
};

// Every step the passes take, and what it is called in each front end.
const std::map<std::string, Primitive>& primitives() {
  static const std::map<std::string, Primitive> table = {
      {"split",
       {"split", "stripmine",
        [](Schedule& s, const ir::StmtP& t, const Step& p) { return s.split(t, p.loops.at(0), p.numbers.at(0)); }}},
      {"fission",
       {"fission", "fission",
        [](Schedule& s, const ir::StmtP& t, const Step& p) {
          return s.fission(t, p.loops.at(0), static_cast<int>(p.numbers.at(0)));
        }}},
      {"reorder", {"reorder", "reorder", [](Schedule& s, const ir::StmtP& t, const Step& p) { return s.reorder(t, p.loops); }}},
      {"parallelize",
       {"parallelize", "parallelize",
        [](Schedule& s, const ir::StmtP& t, const Step& p) {
          return s.parallelize(t, p.loops.at(0),
                               p.word == "dynamic" ? ir::ThreadSchedule::Dynamic : ir::ThreadSchedule::Static);
        }}},
      {"vectorize",
       {"vectorize", "vectorize", [](Schedule& s, const ir::StmtP& t, const Step& p) { return s.vectorize(t, p.loops.at(0)); }}},
      {"unroll_and_jam",
       {"unroll_and_jam", "unroll_and_jam",
        [](Schedule& s, const ir::StmtP& t, const Step& p) {
          return s.unrollAndJam(t, p.loops.at(0), p.numbers.at(0));
        }}},
      {"unroll",
       {"unroll", "unroll",
        [](Schedule& s, const ir::StmtP& t, const Step& p) {
          return p.numbers.empty() ? s.unroll(t, p.loops.at(0)) : s.unroll(t, p.loops.at(0), p.numbers.at(0));
        }}},
      {"hoist_product",
       {"hoist_product", "hoist_product",
        [](Schedule& s, const ir::StmtP& t, const Step& p) { return s.hoistProduct(t, p.loops.at(0)); }}},
      {"factor_sum",
       {"factor_sum", "factor_sum",
        [](Schedule& s, const ir::StmtP& t, const Step& p) { return s.factorSum(t, p.loops.at(0)); }}},
      {"separate_tail",
       {"separate_tail", "separate_tail",
        [](Schedule& s, const ir::StmtP& t, const Step& p) { return s.separateTail(t, p.loops.at(0)); }}},
      {"cache",
       {"cache", "cache",
        [](Schedule& s, const ir::StmtP& t, const Step& p) { return s.cache(t, p.loops.at(0), p.word, false, 0); }}},
      {"cache_zeroed",
       {"cache_zeroed", "cache_zeroed",
        [](Schedule& s, const ir::StmtP& t, const Step& p) { return s.cacheZeroed(t, p.loops.at(0), p.word, 0); }}},
      {"local",
       {"local", "local",
        [](Schedule& s, const ir::StmtP& t, const Step& p) { return s.makeLocal(t, p.loops.at(0), p.word, 0); }}},
      {"var_reorder",
       {"var_reorder", "var_reorder",
        [](Schedule& s, const ir::StmtP& t, const Step& p) {
          return Schedule::Applied{s.varReorder(t, p.word, std::vector<int>(p.numbers.begin(), p.numbers.end())), {}};
        }}},
      {"prefetch",
       {"prefetch", "prefetch",
        [](Schedule& s, const ir::StmtP& t, const Step& p) { return Schedule::Applied{s.prefetch(t, p.word, 1), {}}; }}},
  };
  return table;
}

const Primitive& primitive(const std::string& name) {
  auto it = primitives().find(name);
  if (it == primitives().end()) throw schedule::ScheduleError("no automatic step is called '" + name + "'");
  return it->second;
}

std::string quoted(const std::string& s) { return "\"" + s + "\""; }

}  // namespace

Schedule::Applied applyStep(Schedule& schedule, const ir::StmtP& top, const Step& step) {
  return primitive(step.primitive).apply(schedule, top, step);
}

std::string freeformText(const Step& step) {
  std::vector<std::string> args;
  if (step.primitive == "reorder") {
    std::string list;
    for (auto& l : step.loops) list += (list.empty() ? "" : ", ") + quoted(l);
    args.push_back("[" + list + "]");
  } else {
    for (auto& l : step.loops) args.push_back(quoted(l));
  }
  for (auto n : step.numbers) args.push_back(std::to_string(n));
  if (!step.word.empty()) args.push_back(quoted(step.word));
  std::string text = "s." + primitive(step.primitive).freeform + "(";
  for (size_t k = 0; k < args.size(); ++k) text += (k ? ", " : "") + args[k];
  return text + ")";
}

std::string temlText(const Step& step, const std::string& in, const std::string& out) {
  std::string text = out + " = " + primitive(step.primitive).teml + "(" + in;
  if (step.primitive == "reorder") {
    std::string list;
    for (auto& l : step.iterators) list += (list.empty() ? "" : ", ") + l;
    text += ", [" + list + "]";
  } else if (step.primitive == "var_reorder") {
    std::string list;
    for (auto n : step.numbers) list += (list.empty() ? "" : ", ") + std::to_string(n);
    return text + ", " + step.word + ", [" + list + "])";
  } else {
    for (auto& l : step.iterators) text += ", " + l;
  }
  for (auto n : step.numbers) text += ", " + std::to_string(n);
  if (!step.word.empty()) text += ", " + step.word;
  return text + ")";
}

std::vector<std::string> temlLines(const std::vector<Step>& steps, const std::string& nest, const std::string& result) {
  std::vector<std::string> lines = {"# " + nest + ": " + std::to_string(steps.size()) + " steps"};
  std::string in = nest;
  for (size_t k = 0; k < steps.size(); ++k) {
    std::string out = !result.empty() && k + 1 == steps.size() ? result : nest + "_" + std::to_string(k + 1);
    lines.push_back(temlText(steps[k], in, out));
    in = out;
  }
  if (result.empty()) lines.push_back("codegen(" + in + ")");
  else if (steps.empty()) lines.push_back("# " + result + " is " + nest + " as it is");
  return lines;
}

}  // namespace teml::autoschedule
