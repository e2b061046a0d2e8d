#include "lowering/branches_to_selects.hpp"

#include "ir/mutator.hpp"

namespace teml::lowering {

using namespace ir;

namespace {

// Computing `e` when the branch would not have is harmless: no load at an
// index read from data, no integer division or remainder.
bool safeToCompute(const ExprP& e) {
  bool safe = true;
  forEachExpr(e, [&](const ExprP& x) {
    if (x->kind == ExprKind::Load)
      for (auto& i : x->as<Load>().indices)
        forEachExpr(i, [&](const ExprP& y) { safe = safe && y->kind != ExprKind::Load; });
    if (x->kind == ExprKind::Binary) {
      auto& b = x->as<Binary>();
      bool division = b.op == BinOp::Div || b.op == BinOp::FloorDiv || b.op == BinOp::Mod;
      safe = safe && !(division && isIntegral(b.dtype));
    }
  });
  return safe;
}

// The one statement of a branch, through sequences of one.
StmtP single(const StmtP& s) {
  if (s && s->kind == StmtKind::Seq) {
    auto& q = s->as<Seq>();
    return q.stmts.size() == 1 ? single(q.stmts[0]) : nullptr;
  }
  return s;
}

bool sameIndices(const std::vector<ExprP>& a, const std::vector<ExprP>& b) {
  if (a.size() != b.size()) return false;
  for (size_t d = 0; d < a.size(); ++d)
    if (!equal(a[d], b[d])) return false;
  return true;
}

// select(c, a, b), the operations a and b share done once, outside:
// select(c, sigmoid(d / s), sigmoid(-d / s)) is sigmoid(select(c, d, -d) / s).
ExprP choice(const ExprP& c, const ExprP& a, const ExprP& b) {
  if (equal(a, b)) return a;
  if (a->kind == ExprKind::Unary && b->kind == ExprKind::Unary && a->dtype == b->dtype) {
    auto& x = a->as<Unary>();
    auto& y = b->as<Unary>();
    if (x.op == y.op) return unary(x.op, choice(c, x.a, y.a));
  }
  if (a->kind == ExprKind::Binary && b->kind == ExprKind::Binary && a->dtype == b->dtype) {
    auto& x = a->as<Binary>();
    auto& y = b->as<Binary>();
    if (x.op == y.op && equal(x.b, y.b)) return binary(x.op, choice(c, x.a, y.a), x.b);
    if (x.op == y.op && equal(x.a, y.a)) return binary(x.op, x.a, choice(c, x.b, y.b));
  }
  return select(c, a, b);
}

class ToSelects : public Mutator {
 protected:
  StmtP mutateIf(const StmtP& s) override {
    StmtP out = Mutator::mutateIf(s);  // inner branches (an elif chain) first
    auto& i = out->as<If>();
    StmtP t = single(i.then), o = single(i.otherwise);
    if (!t || !o || t->kind != o->kind) return out;
    if (t->kind == StmtKind::Store) {
      auto& a = t->as<Store>();
      auto& b = o->as<Store>();
      if (a.tensor != b.tensor || !sameIndices(a.indices, b.indices) || !safeToCompute(a.value) ||
          !safeToCompute(b.value))
        return out;
      return makeStore(a.tensor, a.indices, choice(i.cond, a.value, b.value), a.loc, a.tag);
    }
    if (t->kind == StmtKind::Reduce) {
      auto& a = t->as<Reduce>();
      auto& b = o->as<Reduce>();
      if (a.tensor != b.tensor || a.op != b.op || a.atomic != b.atomic || !sameIndices(a.indices, b.indices) ||
          !safeToCompute(a.value) || !safeToCompute(b.value))
        return out;
      return makeReduce(a.op, a.tensor, a.indices, choice(i.cond, a.value, b.value), a.loc, a.tag, a.atomic);
    }
    return out;
  }
};

}  // namespace

StmtP branchesToSelects(const StmtP& nest) { return ToSelects().mutate(nest); }

}  // namespace teml::lowering
