#include "ir/affine.hpp"

#include <algorithm>

#include "ir/functor.hpp"

namespace teml::ir {

namespace {

class AffineForm : public ExprFunctor<bool(Affine*)> {
 public:
  bool of(const ExprP& e, Affine* out) { return dispatch(e, out); }

 private:
  bool visitIntConst(const IntConst& c, Affine* out) override {
    *out = Affine{{}, c.value};
    return true;
  }
  bool visitVar(const Var& v, Affine* out) override {
    *out = Affine{{{v.name, 1}}, 0};
    return true;
  }
  bool visitFloatConst(const FloatConst&, Affine*) override { return false; }
  bool visitLoad(const Load&, Affine*) override { return false; }
  bool visitUnary(const Unary& u, Affine* out) override {
    if (u.op != UnaryOp::Neg || !of(u.a, out)) return false;
    for (auto& [v, c] : out->coeffs) c = -c;
    out->constant = -out->constant;
    return true;
  }
  bool visitCast(const Cast&, Affine*) override { return false; }
  bool visitSelect(const Select&, Affine*) override { return false; }
  bool visitBinary(const Binary& b, Affine* out) override {
    Affine x, y;
    if (!of(b.a, &x) || !of(b.b, &y)) return false;
    if (b.op == BinOp::Add || b.op == BinOp::Sub) {
      int64_t sign = b.op == BinOp::Add ? 1 : -1;
      for (auto& [v, c] : y.coeffs) x.coeffs[v] += sign * c;
      x.constant += sign * y.constant;
      for (auto it = x.coeffs.begin(); it != x.coeffs.end();)
        it = it->second == 0 ? x.coeffs.erase(it) : std::next(it);
      *out = x;
      return true;
    }
    if (b.op == BinOp::Mul && (x.coeffs.empty() || y.coeffs.empty())) {
      Affine& k = x.coeffs.empty() ? x : y;
      Affine& f = x.coeffs.empty() ? y : x;
      if (k.constant == 0) {
        *out = Affine{};
        return true;
      }
      for (auto& [v, c] : f.coeffs) c *= k.constant;
      f.constant *= k.constant;
      *out = f;
      return true;
    }
    return false;
  }
};

class IntervalOf : public ExprFunctor<bool(Interval*)> {
 public:
  explicit IntervalOf(const Ranges& ranges) : ranges_(ranges) {}
  bool of(const ExprP& e, Interval* out) { return dispatch(e, out); }

 private:
  bool visitIntConst(const IntConst& c, Interval* out) override {
    *out = {c.value, c.value};
    return true;
  }
  bool visitVar(const Var& v, Interval* out) override {
    auto it = ranges_.find(v.name);
    if (it == ranges_.end()) return false;
    *out = it->second;
    return true;
  }
  bool visitFloatConst(const FloatConst&, Interval*) override { return false; }
  bool visitLoad(const Load&, Interval*) override { return false; }
  bool visitUnary(const Unary& u, Interval* out) override {
    Interval x;
    if (u.op != UnaryOp::Neg || !of(u.a, &x)) return false;
    *out = {-x.hi, -x.lo};
    return true;
  }
  bool visitCast(const Cast& c, Interval* out) override { return c.dtype == DType::I64 && c.a->isInt() && of(c.a, out); }
  bool visitSelect(const Select& s, Interval* out) override {
    Interval x, y;
    if (!of(s.a, &x) || !of(s.b, &y)) return false;
    *out = {std::min(x.lo, y.lo), std::max(x.hi, y.hi)};
    return true;
  }
  bool visitBinary(const Binary& b, Interval* out) override {
    Interval x, y;
    if (!of(b.a, &x) || !of(b.b, &y)) return false;
    switch (b.op) {
      case BinOp::Add: *out = {x.lo + y.lo, x.hi + y.hi}; return true;
      case BinOp::Sub: *out = {x.lo - y.hi, x.hi - y.lo}; return true;
      case BinOp::Mul: {
        int64_t c[4] = {x.lo * y.lo, x.lo * y.hi, x.hi * y.lo, x.hi * y.hi};
        *out = {*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
        return true;
      }
      case BinOp::Min: *out = {std::min(x.lo, y.lo), std::min(x.hi, y.hi)}; return true;
      case BinOp::Max: *out = {std::max(x.lo, y.lo), std::max(x.hi, y.hi)}; return true;
      case BinOp::FloorDiv: {
        if (y.lo != y.hi || y.lo <= 0) return false;
        auto fd = [&](int64_t a) {
          int64_t q = a / y.lo;
          return (a % y.lo != 0 && a < 0) ? q - 1 : q;
        };
        *out = {fd(x.lo), fd(x.hi)};
        return true;
      }
      case BinOp::Mod: {
        // Floor modulo by a positive constant: [0, y - 1], or exact within one period.
        if (y.lo != y.hi || y.lo <= 0) return false;
        auto fd = [&](int64_t a) { return a >= 0 ? a / y.lo : -((-a + y.lo - 1) / y.lo); };
        if (fd(x.lo) == fd(x.hi)) *out = {x.lo - fd(x.lo) * y.lo, x.hi - fd(x.hi) * y.lo};
        else *out = {0, y.lo - 1};
        return true;
      }
      case BinOp::Lt:
      case BinOp::Le:
      case BinOp::Eq:
      case BinOp::Gt:
      case BinOp::Ge:
      case BinOp::Ne:
      case BinOp::And:
      case BinOp::Or: {
        if (x.lo != x.hi || y.lo != y.hi) {
          *out = {0, 1};
          return true;
        }
        *out = {0, 0};
        out->lo = out->hi = compareValues(b.op, x.lo, y.lo);
        return true;
      }
      default: return false;
    }
  }

  const Ranges& ranges_;
};

}  // namespace

bool toAffine(const ExprP& e, Affine* out) { return AffineForm().of(e, out); }

namespace {

ExprP termOf(int64_t c, const std::string& v) { return c == 1 ? var(v) : mul(intConst(c), var(v)); }

ExprP sumOf(const Affine& a) {
  ExprP sum;
  for (bool positive : {true, false})  // `t - j`, not `-1 * j + t`
    for (auto& [v, c] : a.coeffs)
      if ((c > 0) == positive) sum = !sum ? termOf(c, v) : c > 0 ? add(sum, termOf(c, v)) : sub(sum, termOf(-c, v));
  if (!sum) return intConst(a.constant);
  if (a.constant == 0) return sum;
  return a.constant > 0 ? add(sum, intConst(a.constant)) : sub(sum, intConst(-a.constant));
}

}  // namespace

ExprP collectTerms(const ExprP& e) {
  Affine a;
  if (toAffine(e, &a)) return sumOf(a);
  if (e->kind != ExprKind::Binary) return e;
  auto& b = e->as<Binary>();
  auto minOrMax = [](const ExprP& x) {
    return x->kind == ExprKind::Binary && (x->as<Binary>().op == BinOp::Min || x->as<Binary>().op == BinOp::Max);
  };
  if (b.op == BinOp::Add || b.op == BinOp::Sub) {
    // An affine term moves into a min or max: x - min(p, q) = max(x - p, x - q).
    ExprP x = collectTerms(b.a), y = collectTerms(b.b);
    Affine unused;
    if (minOrMax(y) && toAffine(x, &unused)) {
      auto& m = y->as<Binary>();
      BinOp op = b.op == BinOp::Add ? m.op : m.op == BinOp::Min ? BinOp::Max : BinOp::Min;
      return collectTerms(binary(op, binary(b.op, x, m.a), binary(b.op, x, m.b)));
    }
    if (minOrMax(x) && toAffine(y, &unused)) {
      auto& m = x->as<Binary>();
      return collectTerms(binary(m.op, binary(b.op, m.a, y), binary(b.op, m.b, y)));
    }
    return binary(b.op, x, y);
  }
  if (!minOrMax(e)) return e;
  ExprP x = collectTerms(b.a), y = collectTerms(b.b);
  // Operands a constant apart: the min or max is one of them.
  Affine ax, ay;
  if (toAffine(x, &ax) && toAffine(y, &ay) && ax.coeffs == ay.coeffs)
    return (ax.constant <= ay.constant) == (b.op == BinOp::Min) ? x : y;
  return binary(b.op, x, y);
}

bool bounds(const ExprP& e, const Ranges& ranges, Interval* out) { return IntervalOf(ranges).of(e, out); }

}  // namespace teml::ir
