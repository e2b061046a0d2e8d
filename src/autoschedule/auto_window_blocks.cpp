#include "autoschedule/auto_window_blocks.hpp"

#include "autoschedule/cut_into_nests.hpp"
#include "autoschedule/loop_queries.hpp"
#include "ir/affine.hpp"
#include "ir/mutator.hpp"

namespace teml::autoschedule {

using namespace ir;

namespace {

constexpr int64_t kTokensInABlock = 8;
// A weighted row's features held in registers for each token of a block:
// 2 vectors of 16 floats, 16 sums for 8 tokens.
constexpr int64_t kFeaturesInRegisters = 32;
// A dot product's rows taken together in the interior: each vector of the
// block's queries, once loaded, serves this many rows (2 x 8 sums in
// registers, 10 loads for 16 FMAs rather than 9 for 8).
constexpr int64_t kRowsTogether = 2;
// A tensor this large is read from beyond the L1 cache by every token.
constexpr int64_t kSharedBytes = 32 << 10;

bool large(const AutoState& state, const std::string& tensor) {
  const TensorDecl* t = state.tensor(tensor);
  return t && t->elementCount() * bytes(t->dtype) >= kSharedBytes;
}

// The stride of the rows `s` reads from a large tensor, as the token and
// the window move: 1 for `k[j + t]`, d for a dilated window's `k[j + d * t]`
// (0: no such row; -1: rows of another form).
int64_t windowStride(const AutoState& state, const StmtP& s, const std::string& token, const std::string& window) {
  int64_t stride = 0;
  forEachExprIn(s, [&](const ExprP& e) {
    if (stride < 0 || e->kind != ExprKind::Load || !large(state, e->as<Load>().tensor)) return;
    for (auto& i : e->as<Load>().indices) {
      Affine a;
      if (!toAffine(i, &a) || a.coeff(window) == 0) continue;
      // Rows j + d * t; once the tokens are spread over d classes, d * m + d * t.
      int64_t d = a.coeff(window);
      bool rows = a.coeff(token) == 1 || a.coeff(token) == d;
      stride = rows && d > 0 && (stride == 0 || stride == d) ? d : -1;
    }
  });
  return stride;
}

// `s` reads rows that tokens next to each other share: `k[j + t]`, or
// `k[d * m + d * t]` for tokens of one class mod d.
bool readsWindowRows(const AutoState& state, const StmtP& s, const std::string& token, const std::string& window) {
  bool found = false;
  forEachExprIn(s, [&](const ExprP& e) {
    if (found || e->kind != ExprKind::Load || !large(state, e->as<Load>().tensor)) return;
    for (auto& i : e->as<Load>().indices) {
      Affine a;
      found = found || (toAffine(i, &a) && a.coeff(window) > 0 && a.coeff(token) == a.coeff(window));
    }
  });
  return found;
}

// A branch inside `s` asks about `v` (the window's bounds check).
bool guardsOn(const StmtP& s, const std::string& v) {
  bool guarded = false;
  forEachStmt(s, [&](const StmtP& t) { guarded = guarded || (t->kind == StmtKind::If && usesVar(t->as<If>().cond, v)); });
  return guarded;
}

// A statement of the token loop that is a window: a loop over constant
// bounds, checked against the sequence's ends, reading rows j + t; wide
// enough that most of a block's rows are in every token's window.
bool isWindow(const AutoState& state, const StmtP& s, const std::string& token) {
  if (s->kind != StmtKind::For) return false;
  auto& f = s->as<For>();
  return constantTrips(f) >= 2 * kTokensInABlock && guardsOn(s, f.var) && readsWindowRows(state, s, token, f.var);
}

// A select on `f`'s iterator in the index of a large tensor's load
// (Longformer's dilation, `select(h < 2, 4, 1)`): separate_interior of f
// leaves each part with one side of it.
bool decidesRows(const AutoState& state, const For& f) {
  bool decides = false;
  forEachExprIn(loopBody(f), [&](const ExprP& e) {
    if (decides || e->kind != ExprKind::Load || !large(state, e->as<Load>().tensor)) return;
    for (auto& i : e->as<Load>().indices)
      forEachExpr(i, [&](const ExprP& x) {
        decides = decides || (x->kind == ExprKind::Select && usesVar(x->as<Select>().cond, f.var));
      });
  });
  return decides;
}

bool candidate(const AutoState& state, const For& f) {
  if (f.loopKind.concurrent() || constantTrips(f) < 4 * kTokensInABlock) return false;
  for (auto& s : bodyItems(f))
    if (isWindow(state, s, f.var)) return true;
  return false;
}

// The dilation of a token loop's windows (rows j + d * t, d > 1, the same
// for every window of it); 0 where there is none.
int64_t dilation(const AutoState& state, const For& f) {
  int64_t d = 0;
  for (auto& s : bodyItems(f)) {
    if (s->kind != StmtKind::For || !guardsOn(s, s->as<For>().var)) continue;
    int64_t stride = windowStride(state, s, f.var, s->as<For>().var);
    if (stride < 0 || (stride > 0 && d > 0 && stride != d)) return 0;
    if (stride > 0) d = stride;
  }
  return d > 1 && constantTrips(f) % d == 0 ? d : 0;
}

// A dilated window's tokens share rows with the tokens d apart: the token
// loop is split by d and its classes mod d go outside (j = d * m + r); the
// loop over m is then the one to block.
void spreadByDilation(AutoState& state, const std::string& id, int64_t d) {
  AutoState::Saved saved = state.save();
  if (!state.tryStep({"split", {id}, {d}})) return;
  std::string blocks = state.made().at(0);
  if (!state.tryStep({"interchange", {blocks, id}})) state.restore(saved);
}

// A window loop, the block's token loop inside it, and its feature loop:
// a dot product (`dot[t] += q[j, p] * k[j + t, p]`, one sum) or a weighted
// row (`y[j, p] += a[t] * v[j + t, p]`, a sum per feature, in chunks).
struct Window {
  std::string window, tokens, features, chunks;
  bool rows = false;
};

std::optional<Window> windowOf(const AutoState& state, const std::string& tokens) {
  Window w{bodyItems(*loopWithId(state.body, tokens)).at(0)->id, tokens};
  auto innermost = innermostLoops(loopWithId(state.body, w.window)->self());
  if (innermost.size() != 1) return std::nullopt;
  w.features = innermost[0];
  const For& features = *loopWithId(state.body, w.features);
  forEachStmt(loopBody(features), [&](const StmtP& s) {
    if (s->kind == StmtKind::Reduce)
      for (auto& i : s->as<Reduce>().indices) w.rows = w.rows || usesVar(i, features.var);
  });
  return w;
}

// The window outside its block's tokens, each row once.
bool rowsOutside(AutoState& state, Window& w) {
  if (!state.tryStep({"skew", {w.tokens, w.window}, {1}}) || !state.tryStep({"interchange_skewed", {w.tokens, w.window}}))
    return false;
  if (!w.rows) return true;
  // Chunks of features outside the window: their sums stay in registers
  // while the window's rows go by.
  if (!state.tryStep({"split", {w.features}, {kFeaturesInRegisters}})) return false;
  w.chunks = state.made().at(0);
  return state.tryStep({"reorder", {w.chunks, w.window, w.tokens, w.features}});
}

// A dot product's interior rows in pairs, the pair inside the feature
// loop, both unrolled with the block's tokens:
// `for p: dot[0][t] += q[j][p] * k[t][p]; dot[0][t + 1] += q[j][p] * k[t + 1][p]; ...`
// (a window with too few interior rows keeps one row at a time).
bool sumsIntoFeatures(AutoState& state, const std::string& window, const std::string& sums, const std::string& features) {
  int64_t rows = constantTrips(*loopWithId(state.body, window));
  if (rows < 2 * kRowsTogether)
    return state.tryStep({"reorder", {features, sums}}) && state.tryStep({"unroll", {sums}});
  if (!state.tryStep({"split", {window}, {kRowsTogether}})) return false;
  if (rows % kRowsTogether && !state.tryStep({"separate_tail", {state.made().at(0)}})) return false;
  if (!state.tryStep({"fission", {window}, {1}})) return false;  // the zeros apart from the sums
  std::string pair = state.made().at(0);
  return state.tryStep({"reorder", {features, pair, sums}}) && state.tryStep({"unroll", {sums}}) &&
         state.tryStep({"unroll", {pair}});
}

// In the rows every token's window holds: the tokens unrolled into the
// vector loop over features.
bool tokensIntoFeatures(AutoState& state, const Window& w) {
  if (!state.tryStep({"separate_interior", {w.window}})) return false;
  std::string tokens = w.tokens;
  if (w.rows) {
    if (!state.tryStep({"reorder", {w.features, w.window, tokens}}) || !state.tryStep({"unroll", {tokens}}))
      return false;
  } else {
    auto items = bodyItems(*loopWithId(state.body, tokens));
    if (items.size() > 1) {  // a dot product's zero before its sum
      if (!state.tryStep({"fission", {tokens}, {static_cast<int64_t>(items.size()) - 1}})) return false;
      tokens = state.made().at(0);
    }
    if (!sumsIntoFeatures(state, w.window, tokens, w.features)) return false;
  }
  if (!state.tryStep({"vectorize", {w.features}})) return false;
  state.lanesAroundSums.push_back(w.features);
  return true;
}

bool blockTokens(AutoState& state, const std::string& id) {
  bool whole = constantTrips(*loopWithId(state.body, id)) % kTokensInABlock == 0;
  if (!state.tryStep({"split", {id}, {kTokensInABlock}})) return false;
  std::string blocks = state.made().at(0);
  if (!whole && !state.tryStep({"separate_tail", {blocks}})) return false;  // whole blocks first
  auto cut = cutIntoNests(state, id, [&](const StmtP& s, const std::string& token) { return isWindow(state, s, token); });
  if (!cut || cut->empty()) return false;
  std::vector<Window> windows;
  for (auto& tokens : *cut) {
    auto w = windowOf(state, tokens);
    if (!w || !rowsOutside(state, *w)) return false;
    windows.push_back(*w);
  }
  // Blocks away from the sequence's ends: no bounds check on their rows.
  if (!state.tryStep({"separate_interior", {blocks}})) return false;
  for (auto& w : windows)
    if (!tokensIntoFeatures(state, w)) return false;
  // The interior's blocks on threads: auto_parallelize leaves a nest with
  // threads alone (its race analysis of the whole blocked nest took seconds).
  state.tryStep({"parallelize", {blocks}});
  return true;
}

}  // namespace

void autoWindowBlocks(AutoState& state) {
  AutoState::Saved before = state.save();
  for (auto& id : state.loops([&](const For& f) { return decidesRows(state, f); }))
    state.tryStep({"separate_interior", {id}});
  for (auto& id : state.loops([&](const For& f) { return !f.loopKind.concurrent() && dilation(state, f) > 0; }))
    spreadByDilation(state, id, dilation(state, *loopWithId(state.body, id)));
  bool blocked = false;
  for (auto& id : state.loops([&](const For& f) { return candidate(state, f); })) {
    AutoState::Saved saved = state.save();
    if (blockTokens(state, id)) blocked = true;
    else state.restore(saved);
  }
  if (!blocked) state.restore(before);
}

}  // namespace teml::autoschedule
