#include "autoschedule/auto_gpu.hpp"

#include <map>
#include <set>

#include "autoschedule/gpu_cost.hpp"
#include "autoschedule/loop_queries.hpp"
#include "diag/diagnostics.hpp"
#include "ir/accesses.hpp"
#include "ir/mutator.hpp"
#include "lowering/cuda/cuda_passes.hpp"
#include "schedule/schedule_error.hpp"

namespace teml::autoschedule {

using namespace ir;

namespace {

constexpr int64_t kThreadsPerBlock = 256;
constexpr int64_t kWarp = 32;

// The loop inside `outer` (not itself) whose iterator is the last
// subscript of the most accesses, with at least 16 iterations, among those
// not in `tried` and neither inside nor around a thread loop; "" if none.
std::string coalescingLoop(const For& outer, const std::set<std::string>& tried) {
  std::map<std::string, int> contiguous;
  for (auto& a : accessesOf(outer.body))
    if (!a.indices.empty() && a.indices.back()->kind == ExprKind::Var) ++contiguous[a.indices.back()->as<Var>().name];
  std::set<std::string> inThreads;
  forEachStmt(outer.body, [&](const StmtP& s) {
    if (s->kind != StmtKind::For || !s->as<For>().loopKind.gpuThreads()) return;
    forEachStmt(s, [&](const StmtP& t) {
      if (t->kind == StmtKind::For) inThreads.insert(t->as<For>().id);
    });
  });
  std::string best;
  int most = 0;
  forEachStmt(outer.body, [&](const StmtP& s) {
    if (s->kind != StmtKind::For) return;
    auto& f = s->as<For>();
    if (tried.count(f.id) || inThreads.count(f.id) || lowering::hasLoop(f.body, &LoopKind::gpuThreads)) return;
    int64_t trips = constantTrips(f);
    auto it = contiguous.find(f.var);
    if (trips < 16 || it == contiguous.end() || it->second <= most) return;
    most = it->second;
    best = f.id;
  });
  return best;
}

// The CUDA lowering admits the nest's kernels (no barrier needed, no
// block too large).
bool kernelsAdmitted(const StmtP& body, const target::Target& target) {
  try {
    lowering::makeKernels(body, Program{}, target);
    return true;
  } catch (const UserError&) {
    return false;
  }
}

// The tensors from outside `f` that its iterations reduce into one
// element of (no subscript uses f's iterator): a dot product's sum.
std::set<std::string> reducedOver(const For& f) {
  std::set<std::string> own, out;
  forEachStmt(f.body, [&](const StmtP& s) {
    if (s->kind == StmtKind::VarDef) own.insert(s->as<VarDef>().decl.name);
  });
  for (auto& a : accessesOf(f.body)) {
    if (a.kind != AccessKind::Reduce || own.count(a.tensor)) continue;
    bool uses = false;
    for (auto& i : a.indices) uses = uses || usesVar(i, f.var);
    if (!uses) out.insert(a.tensor);
  }
  return out;
}

// A reduction over more iterations than a warp has lanes: the lanes take
// every 32nd iteration (neighbouring lanes, neighbouring elements), each
// sums its own in a register, and the warp folds them once, instead of a
// block-wide tree with a barrier per level for every element reduced
// (Longformer's window scores: a dot product of 512 features each).
bool toLanes(AutoState& state, const std::string& id, const std::set<std::string>& reduced) {
  if (!state.tryStep({"split", {id}, {kWarp}})) return false;
  std::string chunks = state.made().at(0), lanes = id;  // split keeps the inner loop's id
  if (!state.tryStep({"reorder", {lanes, chunks}}) || !state.tryStep({"parallelize", {lanes}, {}, "threadIdx.x"}))
    return false;
  for (auto& t : reduced)
    if (!state.tryStep({"cache_reduce", {lanes}, {}, t})) return false;
  return true;
}

// Threads of `id`: split by `width` where it has more iterations; on lanes
// (toLanes) where it reduces into one element over more than a warp.
bool toThreads(AutoState& state, const std::string& id, bool blocksToo, int64_t width = kThreadsPerBlock) {
  const For* f = loopWithId(state.body, id);
  int64_t trips = f ? constantTrips(*f) : -1;
  if (f && !blocksToo && trips > kWarp && !reducedOver(*f).empty()) return toLanes(state, id, reducedOver(*f));
  if (trips >= 0 && trips <= width && !blocksToo)
    return state.tryStep({"parallelize", {id}, {}, "threadIdx.x"});
  if (!state.tryStep({"split", {id}, {width}})) return false;
  std::string outer = state.made().at(0), inner = id;  // split keeps the inner loop's id
  if (blocksToo && !state.tryStep({"parallelize", {outer}, {}, "blockIdx.x"})) return false;
  return state.tryStep({"parallelize", {inner}, {}, "threadIdx.x"});
}

// `loop` to blocks, and in each part of its body the loop with the most
// contiguous accesses to threads: one after another, each kept where the
// nest's kernels are still admitted (a block's statements before and after
// it may run on its threads too, as Longformer's scores and weighted sum).
// Where one part is a reduction on a warp's lanes, the others take a warp
// too (a block no wider than its busiest part).
bool coalesced(AutoState& state, const std::string& loop) {
  if (!state.tryStep({"parallelize", {loop}, {}, "blockIdx.x"})) return false;
  int64_t width = kThreadsPerBlock;
  std::set<std::string> tried;
  if (const For* f = loopWithId(state.body, loop))
    for (std::string inner; !(inner = coalescingLoop(*f, tried)).empty();) {
      tried.insert(inner);
      const For* g = loopWithId(state.body, inner);
      if (constantTrips(*g) > kWarp && !reducedOver(*g).empty()) width = kWarp;
    }
  tried.clear();
  bool any = false;
  while (const For* f = loopWithId(state.body, loop)) {
    std::string inner = coalescingLoop(*f, tried);
    if (inner.empty()) break;
    tried.insert(inner);
    AutoState::Saved before = state.save();
    if (toThreads(state, inner, false, width) && kernelsAdmitted(state.body, state.target)) any = true;
    else state.restore(before);
  }
  return any;
}

// A loop whose bounds read data: a CSR row (range(ptr[i], ptr[i + 1])).
bool boundsReadData(const For& f) { return !readsOf(f.begin).empty() || !readsOf(f.end).empty(); }

// The loops in `s` whose bounds read data, outermost ones only.
std::vector<std::string> rowLoops(const StmtP& s) {
  std::vector<std::string> out;
  std::set<const Stmt*> inside;
  forEachStmt(s, [&](const StmtP& t) {
    if (t->kind != StmtKind::For || inside.count(t.get()) || !boundsReadData(t->as<For>())) return;
    out.push_back(t->as<For>().id);
    forEachStmt(t->as<For>().body, [&](const StmtP& u) { inside.insert(u.get()); });
  });
  return out;
}

// The array (not scalar) tensors defined in `s` among `names`.
std::set<std::string> arraysAmong(const StmtP& s, const std::set<std::string>& names) {
  std::set<std::string> out;
  forEachStmt(s, [&](const StmtP& t) {
    if (t->kind == StmtKind::VarDef && names.count(t->as<VarDef>().decl.name) && !t->as<VarDef>().decl.shape.empty())
      out.insert(t->as<VarDef>().decl.name);
  });
  return out;
}

// `loop` to blocks of one warp, each CSR row inside it (a loop whose
// bounds read data) dealt to the warp's lanes in 32 contiguous chunks,
// each lane summing the arrays the row reduces into in registers
// (cache_reduce) for the warp to fold once, and the loops left with
// contiguous accesses (the row's features) on the lanes too: FreeTensor's
// GAT schedule. Every lane no longer walks every edge of the row.
bool rowsOnLanes(AutoState& state, const std::string& loop) {
  const For* f = loopWithId(state.body, loop);
  if (!f) return false;
  std::vector<std::string> rows = rowLoops(f->body);
  if (rows.empty() || !state.tryStep({"parallelize", {loop}, {}, "blockIdx.x"})) return false;
  for (auto& id : rows) {
    std::set<std::string> arrays = arraysAmong(loopWithId(state.body, loop)->body, reducedOver(*loopWithId(state.body, id)));
    if (!state.tryStep({"split_parts", {id}, {kWarp}})) return false;
    std::string lanes = state.made().at(0);
    if (!state.tryStep({"parallelize", {lanes}, {}, "threadIdx.x"})) return false;
    for (auto& t : arrays)
      if (!state.tryStep({"cache_reduce", {lanes}, {}, t})) return false;
  }
  std::set<std::string> tried;
  while (const For* g = loopWithId(state.body, loop)) {
    std::string inner = coalescingLoop(*g, tried);
    if (inner.empty()) break;
    tried.insert(inner);
    AutoState::Saved before = state.save();
    if (!toThreads(state, inner, false, kWarp) || !kernelsAdmitted(state.body, state.target)) state.restore(before);
  }
  return true;
}

// Every write in `f` to a tensor from outside it names an element by f's
// iterator: its iterations write different elements (no reduction over f).
bool indexesEveryWrite(const For& f) {
  std::set<std::string> own;
  forEachStmt(f.body, [&](const StmtP& s) {
    if (s->kind == StmtKind::VarDef) own.insert(s->as<VarDef>().decl.name);
  });
  for (auto& a : accessesOf(f.body)) {
    if (a.kind == AccessKind::Read || own.count(a.tensor)) continue;
    bool uses = false;
    for (auto& i : a.indices) uses = uses || usesVar(i, f.var);
    if (!uses) return false;
  }
  return true;
}

// The loops perfectly nested in `loop` that write different elements in
// each iteration, merged into it (more blocks); false when there are none.
bool mergeOuter(AutoState& state, const std::string& loop) {
  auto chain = perfectChain(state.body, loop);
  size_t merged = 1;
  for (; merged < chain.size(); ++merged) {
    const For* f = loopWithId(state.body, chain[merged]);
    if (!f || constantTrips(*f) < 0 || !indexesEveryWrite(*f)) break;
    if (!state.tryStep({"merge", {loop, chain[merged]}})) break;
  }
  return merged > 1;
}

}  // namespace

void autoGpu(AutoState& state) {
  auto tensor = [&](const std::string& t) { return state.tensor(t); };
  for (const std::string& loop : outermostLoops(state.body)) {
    const std::function<bool(AutoState&)> candidates[] = {
        [&](AutoState& s) { return mergeOuter(s, loop) && coalesced(s, loop); },
        [&](AutoState& s) { return coalesced(s, loop); },
        [&](AutoState& s) { return mergeOuter(s, loop) && toThreads(s, loop, true); },
        [&](AutoState& s) { return toThreads(s, loop, true); },
        [&](AutoState& s) { return s.tryStep({"parallelize", {loop}, {}, "blockIdx.x"}); },
    };
    AutoState::Saved before = state.save();
    for (auto& candidate : candidates) {
      if (candidate(state) && kernelsAdmitted(state.body, state.target)) break;
      state.restore(before);
    }
    // CSR rows on a warp's lanes where the card's cost model finds them
    // faster than the first candidate admitted (GAT's edges: every lane no
    // longer walks every edge of its node). The other candidates keep their
    // order, as measured on a card.
    AutoState::Saved first = state.save();
    std::vector<Step> firstSteps(state.steps.begin() + before.steps, state.steps.end());
    state.restore(before);
    if (rowsOnLanes(state, loop) && kernelsAdmitted(state.body, state.target) &&
        (first.steps == before.steps ||
         gpuCost(state.body, tensor, state.target).seconds < gpuCost(first.body, tensor, state.target).seconds))
      continue;
    state.restore(before);
    state.body = first.body;
    state.steps.insert(state.steps.end(), firstSteps.begin(), firstSteps.end());
  }
}

}  // namespace teml::autoschedule
