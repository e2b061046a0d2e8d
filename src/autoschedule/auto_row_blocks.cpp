#include "autoschedule/auto_row_blocks.hpp"

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

// Cuts the block loop `rows` until each statement that reads shared rows is
// a loop alone in a block loop of its own; returns those block loops.
std::optional<std::vector<std::string>> cutIntoNests(AutoState& state, const std::string& rows) {
  std::vector<std::string> blocks, pending{rows};
  while (!pending.empty()) {
    std::string cur = pending.back();
    pending.pop_back();
    for (;;) {
      const For* f = loopWithId(state.body, cur);
      auto items = bodyItems(*f);
      int first = -1;
      for (size_t k = 0; k < items.size() && first < 0; ++k)
        if (readsSharedRows(state, items[k], f->var)) first = static_cast<int>(k);
      if (first < 0) break;
      if (first > 0) {  // the statements before it stay behind
        if (!state.tryStep({"fission", {cur}, {first}})) return std::nullopt;
        cur = state.made().at(0);
        continue;
      }
      if (items.size() == 1) {
        if (items[0]->kind != StmtKind::For) return std::nullopt;
        blocks.push_back(cur);
        break;
      }
      if (!state.tryStep({"fission", {cur}, {1}})) return std::nullopt;
      std::string rest = state.made().at(0);
      if (items[0]->kind == StmtKind::For) {
        blocks.push_back(cur);
        cur = rest;
      } else {  // a tensor defined around loops: its loops are cut next
        pending.push_back(rest);
      }
    }
  }
  return blocks;
}

bool blockRows(AutoState& state, const std::string& id) {
  if (!state.tryStep({"split", {id}, {kRowsInABlock}})) return false;
  auto blocks = cutIntoNests(state, id);
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
