#include "driver/auto_distribute.hpp"

#include <sstream>

#include "analysis/concurrency_with_isl.hpp"
#include "analysis/flops.hpp"
#include "diag/diagnostics.hpp"
#include "ir/mutator.hpp"
#include "lowering/distributed/traffic.hpp"
#include "lowering/lower.hpp"
#include "schedule/loop_target.hpp"

namespace teml::driver {

using namespace ir;

namespace {

// What this machine's ranks do per second (shared-memory transport about
// 1 GB/s, one core a few GFLOP/s): communication is small against the work
// where it takes at most a quarter of the time.
constexpr double kBytesPerSecond = 1e9, kFlopsPerSecond = 4e9, kLargestShare = 0.25;

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

Program autoDistribute(const Program& scheduled, const target::Target& target, const std::string& cacheDir,
                       std::vector<std::string>& notes) {
  if (target.ranks <= 1 || anyDistributed(scheduled)) return scheduled;
  Program candidate = scheduled;
  std::vector<std::string> chosen;
  for (auto& nest : candidate.nests) {
    std::vector<StmtP> loops;
    stepLoops(nest, loops);
    for (auto& s : loops) {
      auto& f = s->as<For>();
      if (f.loopKind.gpu() || f.loopKind.lanes() || f.step != 1) continue;
      if (f.begin->kind != ExprKind::IntConst || f.end->kind != ExprKind::IntConst) continue;
      if (f.end->as<IntConst>().value - f.begin->as<IntConst>().value < target.ranks) continue;
      LoopKind kind = f.loopKind;
      kind.distributed = true;
      auto marked = std::make_shared<For>(f.id, f.var, f.begin, f.end, f.step, kind, f.body, f.made);
      if (!analysis::concurrencyOf(nest, *marked, false, false, cacheDir).report.ok) continue;
      nest = schedule::replaceStmt(nest, s, marked);
      chosen.push_back(f.id);
    }
  }
  if (chosen.empty()) {
    notes.push_back("distribute: no loop at the top level of the program can be split across the ranks");
    return scheduled;
  }
  int64_t most = 0;
  try {
    for (auto& t : lowering::predictedTraffic(lowering::lower(candidate, target, cacheDir)))
      most = std::max(most, t.sent + t.received);
  } catch (const UserError& e) {
    notes.push_back(std::string("distribute: not distributed (") + e.what() + ")");
    return scheduled;
  }
  double work = analysis::countFlops(candidate) / target.ranks / kFlopsPerSecond;
  double talk = static_cast<double>(most) / kBytesPerSecond;
  std::ostringstream why;
  why << "predicted exchanges " << most << " B per rank (" << talk * 1e3 << " ms at 1 GB/s) against "
      << work * 1e3 << " ms of work per rank (4 GFLOP/s)";
  if (talk > kLargestShare * work) {
    notes.push_back("distribute: not distributed: " + why.str());
    return scheduled;
  }
  for (auto& id : chosen) notes.push_back("distribute(\"" + id + "\")  # " + why.str());
  return candidate;
}

}  // namespace teml::driver
