#include "frontend/teil/teil.hpp"

namespace teml::teil {

using namespace types;

namespace {

TExprP with(const TExpr& e, std::vector<TExprP> kids) {
  auto n = std::make_shared<TExpr>(e);
  n->kids = std::move(kids);
  return n;
}

// One bottom-up pass: the kids first, then the equations at this node until
// none applies. Each rule is an equation of the TeIL paper's Section 3.6 or
// follows from Figure 6 the same way.
TExprP simplify(const TExprP& e) {
  std::vector<TExprP> kids;
  bool changed = false;
  for (auto& k : e->kids) {
    kids.push_back(simplify(k));
    changed |= kids.back() != k;
  }
  TExprP cur = changed ? with(*e, kids) : e;
  while (true) {
    const TExpr& n = *cur;
    if (n.op == TOp::Paren) {  // grouping only
      cur = n.kids[0];
      continue;
    }
    const TExpr* k = n.kids.empty() ? nullptr : n.kids[0].get();
    // (3) proj i m (expa i n e) = e
    if (n.op == TOp::Proj && k->op == TOp::Expa && k->ints[0] == n.ints[0]) {
      cur = k->kids[0];
      continue;
    }
    // (4) diag i0 i1 (transp i0 i1 e) = diag i0 i1 e
    if (n.op == TOp::Diag && k->op == TOp::Transp &&
        ((k->ints[0] == n.ints[0] && k->ints[1] == n.ints[1]) || (k->ints[0] == n.ints[1] && k->ints[1] == n.ints[0]))) {
      cur = with(n, {k->kids[0]});
      continue;
    }
    // transp i0 i1 (transp i0 i1 e) = e, and transp i i e = e
    if (n.op == TOp::Transp && n.ints[0] == n.ints[1]) {
      cur = n.kids[0];
      continue;
    }
    if (n.op == TOp::Transp && k->op == TOp::Transp &&
        ((k->ints[0] == n.ints[0] && k->ints[1] == n.ints[1]) || (k->ints[0] == n.ints[1] && k->ints[1] == n.ints[0]))) {
      cur = k->kids[0];
      continue;
    }
    // (5) red+ i (expa i n e) = n * e; max and min of n equal values are that value
    if (n.op == TOp::Red && k->op == TOp::Expa && k->ints[0] == n.ints[0] && n.red != RedKind::Product) {
      if (n.red == RedKind::Sum) {
        auto s = std::make_shared<TExpr>(TExpr{TOp::Scale, "", RedKind::Sum, {}, {k->kids[0]}, n.loc});
        s->factor = static_cast<double>(k->ints[1]);
        cur = s;
      } else {
        cur = k->kids[0];
      }
      continue;
    }
    return cur;
  }
}

}  // namespace

TeilProgram rewriteTeil(const TeilProgram& p) {
  TeilProgram out = p;
  for (auto& s : out.statements) s.value = simplify(s.value);
  return out;
}

std::string toString(const TeilProgram& p) {
  std::string t;
  for (auto& a : p.allocs) t += "alloc " + a.name + " : " + shapeText(a.shape) + "\n";
  for (auto& s : p.statements) t += s.target + " = " + toString(*s.value) + "\n";
  return t;
}

}  // namespace teml::teil
