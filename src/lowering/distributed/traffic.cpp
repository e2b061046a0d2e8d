#include "lowering/distributed/traffic.hpp"

#include <algorithm>
#include <map>
#include <string>

#include "ir/mutator.hpp"
#include "ir/visitor.hpp"

namespace teml::lowering {

using namespace ir;

std::map<std::string, int64_t> elementBytes(const Program& p) {
  std::map<std::string, int64_t> elem;
  for (auto& t : p.tensors) elem[t.name] = bytes(t.dtype);
  for (auto& n : p.nests)
    forEachStmt(n, [&](const StmtP& s) {
      if (s->kind == StmtKind::VarDef) elem.emplace(s->as<VarDef>().decl.name, bytes(s->as<VarDef>().decl.dtype));
    });
  return elem;
}

std::pair<int64_t, int64_t> exchangeBytes(const Exchange& x, int64_t elem, int rank) {
  if (x.kind == ExchangeKind::Reduction) return {x.combined.elements() * elem, x.combined.elements() * elem};
  if (movesNoRows(x.kind)) return {0, 0};
  if (x.kind == ExchangeKind::ReductionToOwners) {
    // At most: every row of the box others own goes out, and every other
    // rank sends each row this one owns; a row travels with its number.
    int64_t rows = x.combined.hi[0] - x.combined.lo[0];
    int64_t slot = static_cast<int64_t>(sizeof(int64_t)) + (rows ? x.combined.elements() / rows : 0) * elem;
    int64_t own = x.transfers[rank].hi[0] - x.transfers[rank].lo[0];
    return {(rows - own) * slot, own * static_cast<int64_t>(x.transfers.size() - 1) * slot};
  }
  int64_t sent = 0, received = 0;
  for (auto& b : x.transfers) {
    if (b.from == b.to) continue;
    if (b.from == rank) sent += b.elements() * elem;
    if (b.to == rank) received += b.elements() * elem;
  }
  return {sent, received};
}

namespace {

// Each exchange with the trips of the loops around it (a time loop's).
class Runs : public Visitor {
 public:
  std::vector<std::pair<const Exchange*, int64_t>> out;

 protected:
  void visitFor(const For& f) override {
    int64_t before = times_, b = 0, e = 0;
    if (constValue(f.begin, &b) && constValue(f.end, &e) && f.step > 0) times_ *= std::max<int64_t>(0, (e - b + f.step - 1) / f.step);
    Visitor::visitFor(f);
    times_ = before;
  }
  void visitExchange(const Exchange& x) override { out.push_back({&x, times_}); }

 private:
  int64_t times_ = 1;
};

}  // namespace

std::vector<std::pair<const Exchange*, int64_t>> exchangeRuns(const Program& p) {
  Runs runs;
  for (auto& n : p.nests) runs.visit(n);
  return runs.out;
}

std::vector<RankTraffic> predictedTraffic(const Program& p) {
  int ranks = std::max(1, p.distribution.ranks);
  std::vector<RankTraffic> out(ranks);
  auto elem = elementBytes(p);
  for (auto& [x, times] : exchangeRuns(p))
    for (int r = 0; r < ranks && !movesNoRows(x->kind); ++r) {
      auto [sent, received] = exchangeBytes(*x, elem.at(x->tensor), r);
      out[r].sent += sent * times;
      out[r].received += received * times;
      // A reduction: one collective; to owners: counts, then a message to each other rank.
      int64_t messages = x->kind == ExchangeKind::Reduction           ? 1
                         : x->kind == ExchangeKind::ReductionToOwners ? ranks
                                                                      : 0;
      for (auto& b : x->transfers) messages += b.from != b.to && (b.from == r || b.to == r);
      out[r].messages += messages * times;
    }
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

double exchangeSeconds(const std::vector<RankTraffic>& ranks) {
  double most = 0;
  for (auto& t : ranks)
    most = std::max(most, static_cast<double>(t.sent + t.received) / kExchangeBytesPerSecond +
                              static_cast<double>(t.messages) * kSecondsPerMessage);
  return most;
}

}  // namespace teml::lowering
