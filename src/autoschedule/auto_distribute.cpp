#include "autoschedule/auto_distribute.hpp"

#include <algorithm>
#include <functional>
#include <sstream>

#include "analysis/flops.hpp"
#include "diag/diagnostics.hpp"
#include "ir/mutator.hpp"
#include "lowering/distributed/traffic.hpp"
#include "lowering/lower.hpp"
#include "schedule/primitives.hpp"
#include "schedule/schedule_error.hpp"

namespace teml::autoschedule {

using namespace ir;

namespace {

// What one core of this machine does per second (a few GFLOP/s; exchanges
// as lowering/distributed/traffic.hpp models them): communication is small
// against the work where it takes at most a quarter of the time.
constexpr double kFlopsPerSecond = 4e9, kLargestShare = 0.25;
// A serial loop of at most this many iterations around loops is a time loop
// whose steps may be distributed (docs/distributed.md, "Time loops").
constexpr int64_t kMostTimeSteps = 4096;

// The loops at the top level of the program (through sequences and the tensors a nest defines).
void stepLoops(const StmtP& s, std::vector<StmtP>& out) {
  if (s->kind == StmtKind::Seq) {
    for (auto& item : s->as<Seq>().stmts) stepLoops(item, out);
  } else if (s->kind == StmtKind::VarDef && !s->as<VarDef>().loopLocal) {
    stepLoops(s->as<VarDef>().body, out);
  } else if (s->kind == StmtKind::For) {
    out.push_back(s);
  }
}

bool anyDistributed(const Program& p) {
  bool any = false;
  for (auto& n : p.nests)
    forEachStmt(n, [&](const StmtP& s) { any |= s->kind == StmtKind::For && s->as<For>().loopKind.distributed; });
  return any;
}

}  // namespace

AutoDistribution autoDistribute(const Program& scheduled, const target::Target& target, const std::string& cacheDir) {
  AutoDistribution out{scheduled, {}, {}, ""};
  if (target.ranks <= 1 || anyDistributed(scheduled)) return out;
  Program candidate = scheduled;
  schedule::Schedule sched(candidate, schedule::ScheduleOptions{true, cacheDir, {}});
  std::vector<schedule::Step> steps;
  std::vector<size_t> nests;
  for (size_t k = 0; k < candidate.nests.size(); ++k) {
    StmtP& nest = candidate.nests[k];
    // Each step's outermost loop that `distribute` accepts; where it refuses
    // a time loop (serial, a few iterations, loops inside), its steps' loops.
    std::function<void(const StmtP&)> consider = [&](const StmtP& s) {
      auto& f = s->as<For>();
      if (f.loopKind.gpu() || f.loopKind.lanes() || f.step != 1) return;
      if (f.begin->kind != ExprKind::IntConst || f.end->kind != ExprKind::IntConst) return;
      int64_t trips = f.end->as<IntConst>().value - f.begin->as<IntConst>().value;
      if (trips >= target.ranks) {
        schedule::Step step{"distribute"};
        step.loops = {f.id};
        step.iterators = {f.var};
        try {  // the primitive, with its checks: a refusal leaves the loop as it was
          nest = schedule::applyStep(sched, nest, step).result;
          steps.push_back(step);
          nests.push_back(k);
          return;
        } catch (const schedule::ScheduleError&) {
        }
      }
      if (f.loopKind.concurrent() || trips > kMostTimeSteps) return;
      std::vector<StmtP> inner;
      stepLoops(f.body, inner);
      for (auto& x : inner) consider(x);
    };
    std::vector<StmtP> loops;
    stepLoops(nest, loops);
    for (auto& s : loops) consider(s);
  }
  if (steps.empty()) {
    out.why = "no loop at the top level of the program, or of a time loop's body, can be split across the ranks";
    return out;
  }
  int64_t most = 0, messages = 0;
  double talk = 0;
  try {
    auto traffic = lowering::predictedTraffic(lowering::lower(candidate, target, cacheDir));
    for (auto& t : traffic) {
      most = std::max(most, t.sent + t.received);
      messages = std::max(messages, t.messages);
    }
    talk = lowering::exchangeSeconds(traffic);
  } catch (const UserError& e) {
    out.why = std::string("not distributed (") + e.what() + ")";
    return out;
  }
  double work = analysis::estimatedFlops(candidate) / target.ranks / kFlopsPerSecond;
  std::ostringstream why;
  why << "predicted exchanges " << most << " B per rank in " << messages << " messages (" << talk * 1e3
      << " ms at 1 GB/s and 5 us a message) against " << work * 1e3 << " ms of work per rank (4 GFLOP/s)";
  if (talk > kLargestShare * work) {
    out.why = "not distributed: " + why.str();
    return out;
  }
  return AutoDistribution{candidate, steps, nests, why.str()};
}

std::vector<std::string> withDistributeLines(std::vector<std::string> lines, const AutoDistribution& d) {
  auto codegen = std::find_if(lines.rbegin(), lines.rend(), [](const std::string& l) { return l.rfind("codegen(", 0) == 0; });
  if (codegen == lines.rend() || d.steps.empty()) return lines;
  // codegen(a, b, ...): one handle per nest, in order.
  std::string inside = codegen->substr(8, codegen->size() - 9);
  std::vector<std::string> handles;
  for (size_t at = 0; at <= inside.size();) {
    size_t comma = inside.find(',', at);
    std::string h = inside.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    h.erase(0, h.find_first_not_of(' '));
    handles.push_back(h);
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  std::vector<std::string> added;
  for (size_t k = 0; k < d.steps.size(); ++k) {
    if (d.nests[k] >= handles.size()) return lines;  // not one handle per nest: left as it was
    std::string& h = handles[d.nests[k]];
    std::string next = h + "_d";
    added.push_back(schedule::temlText(d.steps[k], h, next));
    h = next;
  }
  std::string call = "codegen(";
  for (size_t k = 0; k < handles.size(); ++k) call += (k ? ", " : "") + handles[k];
  *codegen = call + ")";
  auto at = codegen.base() - 1;
  lines.insert(at, added.begin(), added.end());
  return lines;
}

}  // namespace teml::autoschedule
