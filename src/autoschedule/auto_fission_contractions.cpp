#include "autoschedule/auto_fission_contractions.hpp"

#include <set>

#include "autoschedule/loop_queries.hpp"
#include "ir/mutator.hpp"

namespace teml::autoschedule {

using namespace ir;

namespace {

// Sums into smaller tensors (under 64 KiB of floats) stay together: GAT's
// 32 x 32 weight gradient and 32-element attention vectors, summed over
// 100,000 nodes, ran their long sums down columns when cut apart. At 16,384
// elements (attention's q.grad and k.grad at 256 x 64) the cut pays: that
// gradient, one thread, 0.86-0.90 -> 0.69-0.83 ms (`teml bench --wrt`, in
// turns), once its maximum's gradient no longer started threads 256 times
// (auto_parallelize); with those starts it had looked slower cut.
constexpr int64_t kLeastElements = 16384;

// The loops of `chain` whose iterators index the reduced element.
std::set<std::string> loopsIndexing(const Reduce& r, const std::vector<std::string>& vars) {
  std::set<std::string> out;
  for (auto& v : vars)
    for (auto& e : r.indices)
      if (usesVar(e, v)) out.insert(v);
  return out;
}

// The innermost body of the perfect nest `chain` holds only sums into
// different tensors of kLeastElements or more, and not all of them keep the
// same loops.
bool productsTogether(const AutoState& state, const std::vector<std::string>& chain) {
  const StmtP& body = state.body;
  std::vector<std::string> vars;
  for (auto& id : chain) vars.push_back(loopWithId(body, id)->var);
  auto items = bodyItems(*loopWithId(body, chain.back()));
  if (items.size() < 2) return false;
  std::set<std::string> tensors;
  std::set<std::set<std::string>> kept;
  for (auto& s : items) {
    if (s->kind != StmtKind::Reduce || s->as<Reduce>().op != ReduceOp::Add) return false;
    if (!tensors.insert(s->as<Reduce>().tensor).second) return false;
    if (state.elementCount(s->as<Reduce>().tensor).value_or(0) < kLeastElements) return false;
    kept.insert(loopsIndexing(s->as<Reduce>(), vars));
  }
  return kept.size() > 1;
}

}  // namespace

void autoFissionContractions(AutoState& state) {
  std::set<std::string> tried;
  for (bool changed = true; changed;) {
    changed = false;
    for (auto& id : outermostLoops(state.body)) {
      auto chain = perfectChain(state.body, id);
      if (tried.count(id) || !productsTogether(state, chain)) continue;
      tried.insert(id);
      AutoState::Saved before = state.save();
      bool ok = true;
      for (size_t level = chain.size(); ok && level-- > 0;) ok = state.tryStep({"fission", {chain[level]}, {1}});
      if (!ok) {
        state.restore(before);
        continue;
      }
      changed = true;
      break;  // ids and positions moved: look again (three sums or more: the rest is cut next)
    }
  }
}

}  // namespace teml::autoschedule
