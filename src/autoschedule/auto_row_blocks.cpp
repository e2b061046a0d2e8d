#include "autoschedule/auto_row_blocks.hpp"

#include "autoschedule/cut_into_nests.hpp"
#include "autoschedule/loop_queries.hpp"
#include "ir/mutator.hpp"

namespace teml::autoschedule {

using namespace ir;

namespace {

constexpr int64_t kRowsInABlock = 4;
// A tensor this large is read from beyond the L1 cache by every row.
constexpr int64_t kSharedBytes = 32 << 10;

// `s` reads a program tensor of at least kSharedBytes through subscripts
// that do not use `row`.
bool readsSharedRows(const AutoState& state, const StmtP& s, const std::string& row) {
  bool shared = false;
  forEachExprIn(s, [&](const ExprP& e) {
    if (e->kind != ExprKind::Load) return;
    auto& l = e->as<Load>();
    for (auto& i : l.indices)
      if (usesVar(i, row)) return;
    const TensorDecl* t = state.tensor(l.tensor);
    shared = shared || (t && !l.indices.empty() && t->elementCount() * bytes(t->dtype) >= kSharedBytes);
  });
  return shared;
}

bool hasVectorLoop(const StmtP& s) {
  bool lanes = false;
  forEachStmt(s, [&](const StmtP& t) { lanes = lanes || (t->kind == StmtKind::For && t->as<For>().loopKind.lanes()); });
  return lanes;
}

// The outermost loop `id` is worth blocking: constant trips in whole
// blocks, a body of several statements, one of which reads shared rows.
bool candidate(const AutoState& state, const std::string& id) {
  const For* f = loopWithId(state.body, id);
  if (!f || f->loopKind.concurrent() || hasVectorLoop(f->self())) return false;
  int64_t trips = constantTrips(*f);
  if (trips < 2 * kRowsInABlock || trips % kRowsInABlock != 0) return false;
  auto items = bodyItems(*f);
  if (items.size() < 2) return false;
  for (auto& s : items)
    if (readsSharedRows(state, s, f->var)) return true;
  return false;
}

bool blockRows(AutoState& state, const std::string& id) {
  if (!state.tryStep({"split", {id}, {kRowsInABlock}})) return false;
  auto blocks =
      cutIntoNests(state, id, [&](const StmtP& s, const std::string& row) { return readsSharedRows(state, s, row); });
  if (!blocks || blocks->empty()) return false;
  for (auto& b : *blocks) {
    std::string nest = bodyItems(*loopWithId(state.body, b)).at(0)->id;
    if (!state.tryStep({"reorder", {nest, b}}) || !state.tryStep({"unroll_and_jam", {b}, {kRowsInABlock}}))
      return false;
  }
  return true;
}

}  // namespace

void autoRowBlocks(AutoState& state) {
  for (auto& id : outermostLoops(state.body)) {
    if (!candidate(state, id)) continue;
    AutoState::Saved before = state.save();
    if (!blockRows(state, id)) state.restore(before);
  }
}

}  // namespace teml::autoschedule
