#include "lowering/cuda/gpu_guards.hpp"

#include <algorithm>
#include <map>

#include "ir/fresh_name.hpp"
#include "ir/mutator.hpp"
#include "lowering/cuda/cuda_passes.hpp"

namespace teml::lowering {

using namespace ir;

BlockGuards::BlockGuards(const int64_t blockDim[3], std::set<std::string>& taken) : taken_(taken) {
  for (int d = 0; d < 3; ++d) blockDim_[d] = blockDim[d];
}

StmtP BlockGuards::cooperativeCopy(const StmtP& s) const {
  if (s->kind != StmtKind::For || s->made.primitive != "cache") return nullptr;
  std::vector<const For*> chain;
  StmtP at = s;
  while (at->kind == StmtKind::For) {
    auto& f = at->as<For>();
    int64_t trips = 0;
    if (!localsOf(f).empty() || f.step != 1 || !constValue(sub(f.end, f.begin), &trips)) return nullptr;
    chain.push_back(&f);
    at = f.body;
  }
  if (at->kind != StmtKind::Store) return nullptr;
  std::vector<ParallelScope> bound(chain.size(), ParallelScope::Serial);
  const ParallelScope scopes[3] = {ParallelScope::ThreadX, ParallelScope::ThreadY, ParallelScope::ThreadZ};
  int used = 0;
  for (size_t k = chain.size(); k-- > 0 && used < 3;) {
    int64_t trips = 0;
    constValue(sub(chain[k]->end, chain[k]->begin), &trips);
    while (used < 3 && blockDim_[used] == 1) ++used;
    if (used == 3 || trips > blockDim_[used]) break;
    bound[k] = scopes[used++];
  }
  bool everyLoopBound = std::find(bound.begin(), bound.end(), ParallelScope::Serial) == bound.end();
  if (!everyLoopBound) return flatCopy(chain, at);
  StmtP out = at;
  for (size_t k = chain.size(); k-- > 0;) {
    LoopKind kind = chain[k]->loopKind;
    kind.scope = bound[k];
    kind.independent = bound[k] != ParallelScope::Serial;  // a copy: each iteration its own element
    out = std::make_shared<For>(chain[k]->id, chain[k]->var, chain[k]->begin, chain[k]->end, 1, kind, out, chain[k]->made);
  }
  std::vector<bool> usedDims(3, false);
  for (auto b : bound)
    if (b != ParallelScope::Serial) usedDims[gpuDimension(b)] = true;
  return inThreadZero(out, usedDims);
}

// A copy larger than the block, or not shaped like it: its elements
// numbered row-major and dealt to the block's threads in turn (thread t
// copies elements t, t + T, t + 2T, ...), so that neighbouring threads
// read neighbouring elements. Null where a loop's bounds use another
// loop of the copy.
StmtP BlockGuards::flatCopy(const std::vector<const For*>& chain, const StmtP& store) const {
  std::set<std::string> own;
  for (auto* f : chain) own.insert(f->var);
  for (auto* f : chain)
    for (auto& v : own)
      if (usesVar(f->begin, v)) return nullptr;
  std::vector<int64_t> trips;
  int64_t total = 1;
  for (auto* f : chain) {
    int64_t n = 0;
    constValue(sub(f->end, f->begin), &n);
    trips.push_back(n);
    total *= n;
  }
  int64_t threads = blockDim_[0] * blockDim_[1] * blockDim_[2];
  Provenance made{sourceLocOf(chain[0]->self()), "gpu_barriers", ""};
  std::string thread[3], round = freshName("teml_round", taken_);
  ExprP tid = intConst(0);
  for (int d = 3; d-- > 0;) {
    if (blockDim_[d] == 1) continue;
    thread[d] = freshName("teml_copy", taken_);
    tid = add(mul(tid, intConst(blockDim_[d])), var(thread[d]));
  }
  ExprP element = add(mul(var(round), intConst(threads)), tid);
  std::map<std::string, ExprP> at;
  int64_t stride = 1;
  for (size_t k = chain.size(); k-- > 0;) {
    at[chain[k]->var] = add(chain[k]->begin, binary(BinOp::Mod, floorDiv(element, intConst(stride)), intConst(trips[k])));
    stride *= trips[k];
  }
  StmtP out = substitute(store, at);
  if (total % threads != 0) out = makeIf(binary(BinOp::Lt, element, intConst(total)), out, nullptr);
  for (int d = 0; d < 3; ++d) {
    if (thread[d].empty()) continue;
    LoopKind kind;
    kind.scope = threadScope(d);
    kind.independent = true;
    out = makeFor(thread[d], thread[d], intConst(0), intConst(blockDim_[d]), 1, kind, out, {}, made);
  }
  LoopKind serial;
  serial.independent = true;
  return makeFor(round, round, intConst(0), intConst((total + threads - 1) / threads), 1, serial, out, {}, made);
}

StmtP BlockGuards::inThreadZero(const StmtP& s, const std::vector<bool>& boundDims) const {
  StmtP out = s;
  for (int d = 0; d < 3; ++d) {
    if (blockDim_[d] == 1 || boundDims[d]) continue;
    LoopKind kind;
    kind.scope = threadScope(d);
    kind.independent = true;
    std::string name = freshName("teml_guard", taken_);
    out = makeFor(name, name, intConst(0), intConst(1), 1, kind, out, {}, Provenance{sourceLocOf(s), "gpu_barriers", ""});
  }
  return out;
}

}  // namespace teml::lowering
