#include "ir/expr.hpp"

#include <algorithm>
#include <cmath>

#include "ir/exp_as_generated.hpp"
#include "ir/mutator.hpp"

namespace teml::ir {

const char* dtypeName(DType t) {
  switch (t) {
    case DType::Bool: return "bool";
    case DType::I32: return "int32";
    case DType::I64: return "int64";
    case DType::F32: return "float";
    case DType::F64: return "double";
  }
  return "?";
}

const char* cType(DType t) {
  switch (t) {
    case DType::Bool: return "_Bool";
    case DType::I32: return "int32_t";
    case DType::I64: return "int64_t";
    case DType::F32: return "float";
    case DType::F64: return "double";
  }
  return "?";
}

int bytes(DType t) {
  switch (t) {
    case DType::Bool: return 1;
    case DType::I32:
    case DType::F32: return 4;
    case DType::I64:
    case DType::F64: return 8;
  }
  return 0;
}

bool isIntegral(DType t) { return t == DType::Bool || t == DType::I32 || t == DType::I64; }
bool isFloat(DType t) { return t == DType::F32 || t == DType::F64; }
DType promote(DType a, DType b) { return static_cast<int>(a) > static_cast<int>(b) ? a : b; }

bool isComparison(BinOp op) {
  return op == BinOp::Lt || op == BinOp::Le || op == BinOp::Eq || op == BinOp::Gt || op == BinOp::Ge ||
         op == BinOp::Ne;
}
bool isLogical(BinOp op) { return op == BinOp::And || op == BinOp::Or; }

double applyUnary(UnaryOp op, double x) {
  switch (op) {
    case UnaryOp::Neg: return -x;
    case UnaryOp::Not: return x == 0;
    case UnaryOp::Abs: return std::fabs(x);
    case UnaryOp::Exp: return expAsGenerated(x);
    case UnaryOp::Log: return std::log(x);
    case UnaryOp::Sqrt: return std::sqrt(x);
    case UnaryOp::Tanh: return std::tanh(x);
    case UnaryOp::Sigmoid: {  // as generated code computes it (backend/cpu/math_prelude.cpp)
      if (x != x) return x;
      double e = expAsGenerated(-std::fabs(x));
      return x >= 0 ? 1 / (1 + e) : e / (1 + e);
    }
    case UnaryOp::Sin: return std::sin(x);
    case UnaryOp::Cos: return std::cos(x);
    case UnaryOp::Floor: return std::floor(x);
    case UnaryOp::Ceil: return std::ceil(x);
  }
  return x;
}

Binary::Binary(BinOp o, ExprP x, ExprP y)
    : Expr(ExprKind::Binary, isComparison(o) || isLogical(o) ? DType::Bool : promote(x->dtype, y->dtype)),
      op(o), a(std::move(x)), b(std::move(y)) {}

namespace {
DType unaryType(UnaryOp op, DType a) {
  switch (op) {
    case UnaryOp::Neg:
    case UnaryOp::Abs: return a;
    case UnaryOp::Not: return DType::Bool;
    default: return isFloat(a) ? a : DType::F64;
  }
}
}  // namespace

Unary::Unary(UnaryOp o, ExprP x) : Expr(ExprKind::Unary, unaryType(o, x->dtype)), op(o), a(std::move(x)) {}

const char* unaryOpName(UnaryOp op) {
  switch (op) {
    case UnaryOp::Neg: return "-";
    case UnaryOp::Not: return "not";
    case UnaryOp::Abs: return "abs";
    case UnaryOp::Exp: return "exp";
    case UnaryOp::Log: return "log";
    case UnaryOp::Sqrt: return "sqrt";
    case UnaryOp::Tanh: return "tanh";
    case UnaryOp::Sigmoid: return "sigmoid";
    case UnaryOp::Sin: return "sin";
    case UnaryOp::Cos: return "cos";
    case UnaryOp::Floor: return "floor";
    case UnaryOp::Ceil: return "ceil";
  }
  return "?";
}

const char* binOpName(BinOp op) {
  switch (op) {
    case BinOp::Add: return "+";
    case BinOp::Sub: return "-";
    case BinOp::Mul: return "*";
    case BinOp::Div: return "/";
    case BinOp::FloorDiv: return "floordiv";
    case BinOp::Mod: return "mod";
    case BinOp::Min: return "min";
    case BinOp::Max: return "max";
    case BinOp::Lt: return "<";
    case BinOp::Le: return "<=";
    case BinOp::Eq: return "==";
    case BinOp::And: return "&&";
    case BinOp::Gt: return ">";
    case BinOp::Ge: return ">=";
    case BinOp::Ne: return "!=";
    case BinOp::Or: return "||";
  }
  return "?";
}

int precedence(BinOp op) {
  switch (op) {
    case BinOp::Or: return 0;
    case BinOp::And: return 1;
    case BinOp::Eq:
    case BinOp::Ne: return 2;
    case BinOp::Lt:
    case BinOp::Le:
    case BinOp::Gt:
    case BinOp::Ge: return 3;
    case BinOp::Add:
    case BinOp::Sub: return 4;
    case BinOp::Mul:
    case BinOp::Div: return 5;
    default: return 6;
  }
}

ExprP intConst(int64_t v, DType t) { return std::make_shared<IntConst>(v, t); }
ExprP boolConst(bool v) { return std::make_shared<IntConst>(v ? 1 : 0, DType::Bool); }
ExprP floatConst(double v, DType t) { return std::make_shared<FloatConst>(v, t); }
ExprP var(const std::string& name) { return std::make_shared<Var>(name); }
ExprP load(const std::string& tensor, std::vector<ExprP> indices, DType t) {
  return std::make_shared<Load>(tensor, std::move(indices), t);
}
ExprP unary(UnaryOp op, ExprP a) { return std::make_shared<Unary>(op, std::move(a)); }
ExprP cast(DType t, ExprP a) { return a->dtype == t ? a : std::make_shared<Cast>(t, std::move(a)); }
ExprP select(ExprP cond, ExprP a, ExprP b) {
  return std::make_shared<Select>(std::move(cond), std::move(a), std::move(b));
}

bool constValue(const ExprP& e, int64_t* out) {
  if (e->kind != ExprKind::IntConst) return false;
  *out = static_cast<const IntConst&>(*e).value;
  return true;
}

static int64_t floorDivInt(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// Splits e into (rest, constant) where e == rest + constant.
static ExprP splitConstant(const ExprP& e, int64_t* c) {
  *c = 0;
  if (constValue(e, c)) return nullptr;
  if (e->kind == ExprKind::Binary) {
    auto& b = static_cast<const Binary&>(*e);
    int64_t k;
    if (b.op == BinOp::Add && constValue(b.b, &k)) { *c = k; return b.a; }
    if (b.op == BinOp::Sub && constValue(b.b, &k)) { *c = -k; return b.a; }
  }
  return e;
}

ExprP binary(BinOp op, ExprP a, ExprP b) {
  int64_t x, y;
  bool ca = constValue(a, &x), cb = constValue(b, &y);
  // Only int64 arithmetic folds (index arithmetic); narrower types would need their wrap-around.
  bool ints = a->dtype == DType::I64 && b->dtype == DType::I64;
  if (ca && cb && ints) {
    switch (op) {
      case BinOp::Add: return intConst(x + y);
      case BinOp::Sub: return intConst(x - y);
      case BinOp::Mul: return intConst(x * y);
      case BinOp::FloorDiv: if (y != 0) return intConst(floorDivInt(x, y)); break;
      case BinOp::Mod: if (y != 0) return intConst(x - floorDivInt(x, y) * y); break;
      case BinOp::Min: return intConst(std::min(x, y));
      case BinOp::Max: return intConst(std::max(x, y));
      case BinOp::Lt: return boolConst(x < y);
      case BinOp::Le: return boolConst(x <= y);
      case BinOp::Eq: return boolConst(x == y);
      case BinOp::Gt: return boolConst(x > y);
      case BinOp::Ge: return boolConst(x >= y);
      case BinOp::Ne: return boolConst(x != y);
      case BinOp::And:
      case BinOp::Or:
      case BinOp::Div: break;
    }
  }
  if (ints) {
    if (op == BinOp::Add && ca && x == 0) return b;
    if ((op == BinOp::Add || op == BinOp::Sub) && cb && y == 0) return a;
    if (op == BinOp::Mul && ((ca && x == 0) || (cb && y == 0))) return intConst(0);
    if (op == BinOp::Mul && ca && x == 1) return b;
    if (op == BinOp::Mul && cb && y == 1) return a;
    if (op == BinOp::FloorDiv && cb && y == 1) return a;
    if (op == BinOp::Sub && equal(a, b)) return intConst(0);
    // (e + c1) + c2  ->  e + (c1 + c2);  (e + c1) - c2 likewise.
    if ((op == BinOp::Add || op == BinOp::Sub) && cb) {
      int64_t c1;
      ExprP rest = splitConstant(a, &c1);
      if (rest && rest != a) {
        int64_t c = op == BinOp::Add ? c1 + y : c1 - y;
        return c == 0 ? rest : c > 0 ? std::make_shared<Binary>(BinOp::Add, rest, intConst(c))
                                     : std::make_shared<Binary>(BinOp::Sub, rest, intConst(-c));
      }
      if (op == BinOp::Add && y < 0) return std::make_shared<Binary>(BinOp::Sub, a, intConst(-y));
    }
    // (e + c1) - (e + c2) -> c1 - c2 ; also e - (e + c)
    if (op == BinOp::Sub || op == BinOp::Min || op == BinOp::Max || op == BinOp::Lt ||
        op == BinOp::Le) {
      int64_t c1, c2;
      ExprP r1 = splitConstant(a, &c1), r2 = splitConstant(b, &c2);
      if (r1 && r2 && equal(r1, r2)) {
        switch (op) {
          case BinOp::Sub: return intConst(c1 - c2);
          case BinOp::Min: return c1 <= c2 ? a : b;
          case BinOp::Max: return c1 >= c2 ? a : b;
          case BinOp::Lt: return boolConst(c1 < c2);
          case BinOp::Le: return boolConst(c1 <= c2);
          default: break;
        }
      }
    }
    if ((op == BinOp::Min || op == BinOp::Max) && equal(a, b)) return a;
  }
  return std::make_shared<Binary>(op, std::move(a), std::move(b));
}

std::optional<int64_t> integerValue(BinOp op, int64_t x, int64_t y) {
  switch (op) {
    case BinOp::Add: return x + y;
    case BinOp::Sub: return x - y;
    case BinOp::Mul: return x * y;
    case BinOp::Div:
    case BinOp::FloorDiv:
    case BinOp::Mod: {
      if (y == 0) return std::nullopt;
      int64_t q = x / y;
      if (x % y != 0 && ((x < 0) != (y < 0))) --q;
      return op == BinOp::Mod ? x - q * y : q;
    }
    case BinOp::Min: return std::min(x, y);
    case BinOp::Max: return std::max(x, y);
    default: return compareValues(op, x, y);
  }
}

ExprP add(ExprP a, ExprP b) { return binary(BinOp::Add, std::move(a), std::move(b)); }
ExprP sub(ExprP a, ExprP b) { return binary(BinOp::Sub, std::move(a), std::move(b)); }
ExprP mul(ExprP a, ExprP b) { return binary(BinOp::Mul, std::move(a), std::move(b)); }
ExprP floorDiv(ExprP a, ExprP b) { return binary(BinOp::FloorDiv, std::move(a), std::move(b)); }
ExprP min(ExprP a, ExprP b) { return binary(BinOp::Min, std::move(a), std::move(b)); }
ExprP max(ExprP a, ExprP b) { return binary(BinOp::Max, std::move(a), std::move(b)); }

bool equal(const ExprP& a, const ExprP& b) {
  if (a == b) return true;
  if (a->kind != b->kind) return false;
  switch (a->kind) {
    case ExprKind::IntConst:
      return static_cast<const IntConst&>(*a).value == static_cast<const IntConst&>(*b).value;
    case ExprKind::FloatConst:
      return static_cast<const FloatConst&>(*a).value == static_cast<const FloatConst&>(*b).value;
    case ExprKind::Var:
      return static_cast<const Var&>(*a).name == static_cast<const Var&>(*b).name;
    case ExprKind::Load: {
      auto& x = static_cast<const Load&>(*a);
      auto& y = static_cast<const Load&>(*b);
      if (x.tensor != y.tensor || x.indices.size() != y.indices.size()) return false;
      for (size_t i = 0; i < x.indices.size(); ++i)
        if (!equal(x.indices[i], y.indices[i])) return false;
      return true;
    }
    case ExprKind::Binary: {
      auto& x = static_cast<const Binary&>(*a);
      auto& y = static_cast<const Binary&>(*b);
      return x.op == y.op && equal(x.a, y.a) && equal(x.b, y.b);
    }
    case ExprKind::Unary: {
      auto& x = static_cast<const Unary&>(*a);
      auto& y = static_cast<const Unary&>(*b);
      return x.op == y.op && equal(x.a, y.a);
    }
    case ExprKind::Cast:
      return a->dtype == b->dtype && equal(static_cast<const Cast&>(*a).a, static_cast<const Cast&>(*b).a);
    case ExprKind::Select: {
      auto& x = static_cast<const Select&>(*a);
      auto& y = static_cast<const Select&>(*b);
      return equal(x.cond, y.cond) && equal(x.a, y.a) && equal(x.b, y.b);
    }
  }
  return false;
}

bool usesVar(const ExprP& e, const std::string& name) {
  bool found = false;
  forEachExpr(e, [&](const ExprP& x) { found |= x->kind == ExprKind::Var && static_cast<const Var&>(*x).name == name; });
  return found;
}

}  // namespace teml::ir
