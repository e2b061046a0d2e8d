#include "autoschedule/auto_loop_order.hpp"

#include <set>

#include "autoschedule/loop_queries.hpp"
#include "ir/mutator.hpp"

namespace teml::autoschedule {

using namespace ir;

namespace {

// How consecutive iterations of a loop over `v` touch a tensor.
enum class Walk { Invariant, Contiguous, Scattered };

Walk walkOf(const std::vector<ExprP>& indices, const std::string& v) {
  bool used = false;
  for (size_t d = 0; d < indices.size(); ++d) {
    if (!usesVar(indices[d], v)) continue;
    used = true;
    if (d + 1 != indices.size()) return Walk::Scattered;
  }
  if (!used) return Walk::Invariant;
  const ExprP& last = indices.back();
  if (isVar(last, v)) return Walk::Contiguous;
  if (last->kind == ExprKind::Binary) {
    auto& b = last->as<Binary>();
    bool plusConstant = b.op == BinOp::Add && ((isVar(b.a, v) && !usesVar(b.b, v)) || (isVar(b.b, v) && !usesVar(b.a, v)));
    bool loads = false;
    forEachExpr(last, [&](const ExprP& e) { loads = loads || e->kind == ExprKind::Load; });
    if (plusConstant && !loads) return Walk::Contiguous;
  }
  return Walk::Scattered;
}

// The subscripts of every access in s: the elements stored or reduced into
// and every load.
std::vector<std::vector<ExprP>> accessesIn(const StmtP& s) {
  std::vector<std::vector<ExprP>> out;
  auto loads = [&](const ExprP& e) {
    forEachExpr(e, [&](const ExprP& x) {
      if (x->kind == ExprKind::Load) out.push_back(x->as<Load>().indices);
    });
  };
  forEachStmt(s, [&](const StmtP& t) {
    if (t->kind == StmtKind::Store) {
      auto& st = t->as<Store>();
      out.push_back(st.indices);
      loads(st.value);
      for (auto& i : st.indices) loads(i);
    } else if (t->kind == StmtKind::Reduce) {
      auto& r = t->as<Reduce>();
      out.push_back(r.indices);
      loads(r.value);
      for (auto& i : r.indices) loads(i);
    } else if (t->kind == StmtKind::If) {
      loads(t->as<If>().cond);
    }
  });
  return out;
}

bool hasInnerLoop(const For& f) {
  bool found = false;
  forEachStmt(f.body, [&](const StmtP& s) { found = found || s->kind == StmtKind::For; });
  return found;
}

// Whether the inner loop `k`, run by `j`, walks memory better inside out:
// along j every access is contiguous or unchanged (at least one
// contiguous), along k at least one is scattered.
bool betterInsideOut(const For& j, const For& k) {
  bool contiguous = false, scattered = false;
  for (auto& a : accessesIn(k.body)) {
    Walk alongJ = walkOf(a, j.var);
    if (alongJ == Walk::Scattered) return false;
    contiguous = contiguous || alongJ == Walk::Contiguous;
    scattered = scattered || walkOf(a, k.var) == Walk::Scattered;
  }
  return contiguous && scattered;
}

// The position in j's body of an inner loop worth moving outside it (-1: none).
int innerLoopToHoist(const For& j, int64_t lanes) {
  if (j.loopKind.concurrent() || j.step != 1 || constantTrips(j) < lanes) return -1;
  auto body = bodyItems(j);
  for (size_t q = 0; q < body.size(); ++q) {
    if (body[q]->kind != StmtKind::For) continue;
    auto& k = body[q]->as<For>();
    if (k.loopKind.concurrent() || hasInnerLoop(k) || usesVar(k.begin, j.var) || usesVar(k.end, j.var)) continue;
    if (betterInsideOut(j, k)) return static_cast<int>(q);
  }
  return -1;
}

// Cuts the inner loop at `q` out of j's body (before it, then after it:
// the loop made by a cut keeps its id) and moves it outside j.
bool hoist(AutoState& state, const std::string& j, int q) {
  AutoState::Saved before = state.save();
  auto body = bodyItems(*loopWithId(state.body, j));
  int n = static_cast<int>(body.size());
  std::string inner = body[q]->id, around = j;
  auto refused = [&] {
    state.restore(before);
    return false;
  };
  if (q > 0) {
    if (!state.tryStep({"fission", {j}, {q}})) return refused();
    around = state.made().at(0);
  }
  if (q + 1 < n && !state.tryStep({"fission", {around}, {1}})) return refused();
  if (!state.tryStep({"reorder", {inner, around}})) return refused();
  return true;
}

}  // namespace

void autoLoopOrder(AutoState& state) {
  int64_t lanes = state.target.lanes(DType::F32);
  std::set<std::string> tried;
  for (bool changed = true; changed;) {
    changed = false;
    for (auto& id : state.loops([&](const For& f) { return !tried.count(f.id) && innerLoopToHoist(f, lanes) >= 0; })) {
      tried.insert(id);
      if (hoist(state, id, innerLoopToHoist(*loopWithId(state.body, id), lanes))) {
        changed = true;
        break;  // ids and positions moved: look again
      }
    }
  }
}

}  // namespace teml::autoschedule
