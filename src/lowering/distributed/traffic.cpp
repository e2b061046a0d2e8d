#include "lowering/distributed/traffic.hpp"

#include <map>
#include <string>

#include "ir/mutator.hpp"

namespace teml::lowering {

using namespace ir;

std::vector<RankTraffic> predictedTraffic(const Program& p) {
  int ranks = std::max(1, p.distribution.ranks);
  std::vector<RankTraffic> out(ranks);
  std::map<std::string, int64_t> elem;  // bytes per element, program tensors and those the nests define
  for (auto& t : p.tensors) elem[t.name] = bytes(t.dtype);
  for (auto& n : p.nests)
    forEachStmt(n, [&](const StmtP& s) {
      if (s->kind == StmtKind::VarDef) elem.emplace(s->as<VarDef>().decl.name, bytes(s->as<VarDef>().decl.dtype));
    });
  for (auto& n : p.nests)
    forEachStmt(n, [&](const StmtP& s) {
      if (s->kind != StmtKind::Exchange) return;
      auto& x = s->as<Exchange>();
      int64_t e = elem.count(x.tensor) ? elem.at(x.tensor) : 8;
      if (x.kind == ExchangeKind::Reduction)
        for (auto& r : out) r.sent += x.combined.elements() * e, r.received += x.combined.elements() * e;
      for (auto& b : x.transfers) {
        if (b.from == b.to) continue;
        out[b.from].sent += b.elements() * e;
        out[b.to].received += b.elements() * e;
      }
    });
  for (auto& [name, boxes] : p.distribution.kept) {
    bool written = p.distribution.results.count(name) > 0;
    for (size_t r = 0; r < boxes.size() && r < out.size(); ++r) {
      int64_t b = boxes[r].elements() * elem.at(name);
      out[r].kept += b;
      if (!written) out[r].inputs += b;
    }
  }
  return out;
}

}  // namespace teml::lowering
