#include "lowering/distributed/grid_choice.hpp"

#include "ir/distribution.hpp"
#include "ir/mutator.hpp"
#include "lowering/distributed/exchanges.hpp"
#include "lowering/distributed/traffic.hpp"

namespace teml::lowering {

using namespace ir;

namespace {

bool hasGrid(const Program& p) {
  bool found = false;
  for (auto& n : p.nests)
    forEachStmt(n, [&](const StmtP& s) {
      if (s->kind != StmtKind::For || !s->as<For>().loopKind.distributed) return;
      const For* inner = wholeBodyLoop(s->as<For>());
      found |= inner && inner->loopKind.distributed;
    });
  return found;
}

}  // namespace

Program planExchangesOnAGrid(const Program& lowered, int ranks, int gridRows) {
  if (ranks <= 1 || gridRows > 0 || !hasGrid(lowered)) return planExchanges(lowered, ranks, gridRows);
  const int even = rankGrid(ranks).rows;
  Program best = planExchanges(lowered, ranks, even);  // its refusal is the one reported
  double cheapest = exchangeSeconds(predictedTraffic(best));
  for (int rows = 1; rows <= ranks; ++rows) {
    if (ranks % rows != 0 || rows == even) continue;
    try {
      Program other = planExchanges(lowered, ranks, rows);
      double seconds = exchangeSeconds(predictedTraffic(other));
      if (seconds < cheapest) best = std::move(other), cheapest = seconds;
    } catch (const UserError&) {  // a grid the plan cannot carry: not a candidate
    }
  }
  return best;
}

}  // namespace teml::lowering
