#include "ir/expr.hpp"

#include <algorithm>

namespace teml::ir {

const char* dtypeName(DType t) { return t == DType::F64 ? "double" : "float"; }

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
  }
  return "?";
}

int precedence(BinOp op) {
  switch (op) {
    case BinOp::And: return 1;
    case BinOp::Eq: return 2;
    case BinOp::Lt:
    case BinOp::Le: return 3;
    case BinOp::Add:
    case BinOp::Sub: return 4;
    case BinOp::Mul:
    case BinOp::Div: return 5;
    default: return 6;
  }
}

bool Expr::isInt() const {
  switch (kind) {
    case ExprKind::IntConst:
    case ExprKind::Var: return true;
    case ExprKind::FloatConst:
    case ExprKind::Load: return false;
    case ExprKind::Binary: {
      auto& b = static_cast<const Binary&>(*this);
      return b.a->isInt() && b.b->isInt();
    }
  }
  return false;
}

ExprP intConst(int64_t v) { return std::make_shared<IntConst>(v); }
ExprP floatConst(double v) { return std::make_shared<FloatConst>(v); }
ExprP var(const std::string& name) { return std::make_shared<Var>(name); }
ExprP load(const std::string& tensor, std::vector<ExprP> indices) {
  return std::make_shared<Load>(tensor, std::move(indices));
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
  if (ca && cb) {
    switch (op) {
      case BinOp::Add: return intConst(x + y);
      case BinOp::Sub: return intConst(x - y);
      case BinOp::Mul: return intConst(x * y);
      case BinOp::FloorDiv: if (y != 0) return intConst(floorDivInt(x, y)); break;
      case BinOp::Mod: if (y != 0) return intConst(x - floorDivInt(x, y) * y); break;
      case BinOp::Min: return intConst(std::min(x, y));
      case BinOp::Max: return intConst(std::max(x, y));
      case BinOp::Lt: return intConst(x < y);
      case BinOp::Le: return intConst(x <= y);
      case BinOp::Eq: return intConst(x == y);
      case BinOp::And: return intConst(x && y);
      case BinOp::Div: break;
    }
  }
  bool ints = a->isInt() && b->isInt();
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
          case BinOp::Lt: return intConst(c1 < c2);
          case BinOp::Le: return intConst(c1 <= c2);
          default: break;
        }
      }
    }
    if ((op == BinOp::Min || op == BinOp::Max) && equal(a, b)) return a;
  }
  return std::make_shared<Binary>(op, std::move(a), std::move(b));
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
  }
  return false;
}

bool usesVar(const ExprP& e, const std::string& name) {
  switch (e->kind) {
    case ExprKind::IntConst:
    case ExprKind::FloatConst: return false;
    case ExprKind::Var: return static_cast<const Var&>(*e).name == name;
    case ExprKind::Load:
      for (auto& i : static_cast<const Load&>(*e).indices)
        if (usesVar(i, name)) return true;
      return false;
    case ExprKind::Binary: {
      auto& b = static_cast<const Binary&>(*e);
      return usesVar(b.a, name) || usesVar(b.b, name);
    }
  }
  return false;
}

}  // namespace teml::ir
