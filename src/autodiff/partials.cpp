#include "autodiff/partials.hpp"

#include "ir/functor.hpp"
#include "ir/mutator.hpp"

namespace teml::autodiff {

using namespace ir;

namespace {

bool isFloatConst(const ExprP& e, double v) {
  return e->kind == ExprKind::FloatConst && e->as<FloatConst>().value == v;
}

// Products and sums of a seed, without the 1 * x and 0 + x that a sum of
// loads would otherwise carry into every adjoint.
ExprP times(const ExprP& a, const ExprP& b) {
  if (isFloatConst(a, 1)) return b;
  if (isFloatConst(b, 1)) return a;
  return mul(a, b);
}
ExprP negated(const ExprP& a) { return unary(UnaryOp::Neg, a); }
ExprP constant(double v, DType t) { return floatConst(v, t); }

class Reverse : public ExprFunctor<void(const ExprP&)> {
 public:
  Reverse(const std::function<bool(const Load&)>& carries, const std::function<std::string()>& freshName)
      : carries_(carries), freshName_(freshName) {}
  Partials out;

  void visit(const ExprP& e, const ExprP& seed) {
    if (!isFloat(e->dtype)) return;  // integers and booleans carry no gradient
    if (!isLeaf(seed) && carriers(e) > 1) {
      TensorDecl scalar{freshName_(), seed->dtype, {}};
      out.shared.push_back({scalar, seed});
      return dispatch(e, load(scalar.name, {}, scalar.dtype));
    }
    dispatch(e, seed);
  }

 private:
  void visitIntConst(const IntConst&, const ExprP&) override {}
  void visitFloatConst(const FloatConst&, const ExprP&) override {}
  void visitVar(const Var&, const ExprP&) override {}
  void visitLoad(const Load& l, const ExprP& seed) override { out.partials.push_back({&l, cast(l.dtype, seed)}); }
  void visitCast(const Cast& c, const ExprP& seed) override {
    if (isFloat(c.a->dtype)) visit(c.a, cast(c.a->dtype, seed));
  }
  void visitSelect(const Select& s, const ExprP& seed) override {
    ExprP zero = constant(0, seed->dtype);
    visit(s.a, select(s.cond, seed, zero));
    visit(s.b, select(s.cond, zero, seed));
  }

  void visitUnary(const Unary& u, const ExprP& seed) override {
    ExprP e = u.self();
    DType t = e->dtype;
    const ExprP& x = u.a;
    switch (u.op) {
      case UnaryOp::Neg: return visit(x, negated(seed));
      case UnaryOp::Abs:  // the sign of x, 0 at 0 (PyTorch's and JAX's choice: the least subgradient)
        return visit(x, select(binary(BinOp::Gt, x, constant(0, x->dtype)), seed,
                               select(binary(BinOp::Lt, x, constant(0, x->dtype)), negated(seed),
                                      constant(0, seed->dtype))));
      case UnaryOp::Exp: return visit(x, times(seed, e));
      case UnaryOp::Log: return visit(x, binary(BinOp::Div, seed, cast(t, x)));
      case UnaryOp::Sqrt: return visit(x, binary(BinOp::Div, seed, mul(constant(2, t), e)));
      case UnaryOp::Tanh: return visit(x, times(seed, sub(constant(1, t), mul(e, e))));
      case UnaryOp::Sigmoid: return visit(x, times(seed, mul(e, sub(constant(1, t), e))));
      case UnaryOp::Sin: return visit(x, times(seed, unary(UnaryOp::Cos, x)));
      case UnaryOp::Cos: return visit(x, negated(times(seed, unary(UnaryOp::Sin, x))));
      case UnaryOp::Floor:
      case UnaryOp::Ceil:
      case UnaryOp::Not: return;  // flat almost everywhere
    }
  }

  void visitBinary(const Binary& b, const ExprP& seed) override {
    const ExprP &x = b.a, &y = b.b;
    DType t = seed->dtype;
    ExprP zero = constant(0, t);
    switch (b.op) {
      case BinOp::Add:
        visit(x, seed);
        visit(y, seed);
        return;
      case BinOp::Sub:
        // x - x is flat. Its two partials, +seed and -seed, would cancel only
        // in exact arithmetic: added one after the other to a small adjoint,
        // a large seed rounds the adjoint's low bits away (seed 5070).
        if (equal(x, y)) return;
        visit(x, seed);
        visit(y, negated(seed));
        return;
      case BinOp::Mul:
        visit(x, times(seed, y));
        visit(y, times(seed, x));
        return;
      case BinOp::Div:
        visit(x, binary(BinOp::Div, seed, y));
        visit(y, negated(binary(BinOp::Div, times(seed, x), mul(y, y))));
        return;
      case BinOp::Min:
      case BinOp::Max: {
        // The side taken gets the gradient; on a tie each side half of it,
        // as PyTorch and JAX split it (seed 5576: min's operands tied 330
        // times along a loop, and finite differences saw the split).
        ExprP first = binary(b.op == BinOp::Min ? BinOp::Lt : BinOp::Gt, x, y);
        ExprP tie = binary(BinOp::Eq, x, y);
        ExprP half = times(seed, constant(0.5, t));
        visit(x, select(first, seed, select(tie, half, zero)));
        visit(y, select(first, zero, select(tie, half, seed)));
        return;
      }
      case BinOp::Mod:  // x - y * floor(x / y)
        visit(x, seed);
        visit(y, negated(times(seed, unary(UnaryOp::Floor, binary(BinOp::Div, x, y)))));
        return;
      default: return;  // floor division and comparisons are flat
    }
  }

  static bool isLeaf(const ExprP& e) {
    return e->kind == ExprKind::Load || e->kind == ExprKind::Var || e->kind == ExprKind::FloatConst ||
           e->kind == ExprKind::IntConst;
  }
  // The elements below e that carry a gradient.
  int carriers(const ExprP& e) const {
    int n = 0;
    forEachExpr(e, [&](const ExprP& x) {
      n += x->kind == ExprKind::Load && isFloat(x->dtype) && carries_(x->as<Load>());
    });
    return n;
  }

  const std::function<bool(const Load&)>& carries_;
  const std::function<std::string()>& freshName_;
};

}  // namespace

ExprP partialOfResult(const ExprP& e, const ExprP& result) {
  if (e->kind != ExprKind::Unary) return nullptr;
  DType t = e->dtype;
  switch (e->as<Unary>().op) {
    case UnaryOp::Exp: return result;
    case UnaryOp::Sigmoid: return mul(result, sub(constant(1, t), result));
    case UnaryOp::Tanh: return sub(constant(1, t), mul(result, result));
    case UnaryOp::Sqrt: return binary(BinOp::Div, constant(1, t), mul(constant(2, t), result));
    default: return nullptr;
  }
}

Partials partials(const ExprP& e, const ExprP& seed, const std::function<bool(const Load&)>& carries,
                  const std::function<std::string()>& freshName) {
  Reverse r(carries, freshName);
  r.visit(e, seed);
  return std::move(r.out);
}

}  // namespace teml::autodiff
