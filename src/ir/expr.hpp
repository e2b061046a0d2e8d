// Expressions of the loop IR. Nodes are immutable and shared; build them with
// the helper functions at the bottom, which fold integer constants so that
// the printed IR and generated C stay readable.
#pragma once
#include <cassert>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace teml::ir {

// Element types, in the order of promotion (an operation on two types gives the later one).
enum class DType { Bool, I32, I64, F32, F64 };
const char* dtypeName(DType t);  // for users: "bool", "int32", "int64", "float", "double"
const char* cType(DType t);      // in generated C: "_Bool", "int32_t", "int64_t", "float", "double"
int bytes(DType t);
bool isIntegral(DType t);        // bool and the integers
bool isFloat(DType t);
DType promote(DType a, DType b);

enum class ExprKind {
#define TEML_EXPR_NODE(Kind) Kind,
#include "ir/nodes.def"
};

// Arithmetic (Add..Max) gives the promoted type of its operands; FloorDiv and
// Mod round toward minus infinity (Python's // and %), also on floats.
// Comparisons and And, Or give Bool.
enum class BinOp { Add, Sub, Mul, Div, FloorDiv, Mod, Min, Max, Lt, Le, Eq, And, Gt, Ge, Ne, Or };
bool isComparison(BinOp op);  // Lt, Le, Eq, Gt, Ge, Ne
bool isLogical(BinOp op);     // And, Or
// The value of a comparison or a logical operation on two numbers.
template <class T>
bool compareValues(BinOp op, T x, T y) {
  switch (op) {
    case BinOp::Lt: return x < y;
    case BinOp::Le: return x <= y;
    case BinOp::Eq: return x == y;
    case BinOp::Gt: return x > y;
    case BinOp::Ge: return x >= y;
    case BinOp::Ne: return x != y;
    case BinOp::And: return x && y;
    default: return x || y;  // Or (callers pass comparisons and logical operations only)
  }
}

// The value of `op` on two integers, as teml's integer arithmetic defines
// it (// and % round toward minus infinity, as Python's); nullopt for a
// division by zero, which each caller reports in its own terms.
std::optional<int64_t> integerValue(BinOp op, int64_t x, int64_t y);

// Neg and Abs keep their operand's type, Not gives Bool, Floor and Ceil keep
// a float type; the others (exp, log, sqrt, tanh, sigmoid, sin, cos) give
// their float operand's type, or double for an integer operand.
enum class UnaryOp { Neg, Not, Abs, Exp, Log, Sqrt, Tanh, Sigmoid, Sin, Cos, Floor, Ceil };
const char* unaryOpName(UnaryOp op);  // "-", "not", "abs", "exp", ...
// The value of a unary operation on a number (Not: 1 or 0).
double applyUnary(UnaryOp op, double x);
const char* binOpName(BinOp op);
// C-like precedence of an infix operator; 6 for those printed as calls (min, max, ...).
int precedence(BinOp op);

struct Expr;
using ExprP = std::shared_ptr<const Expr>;

// Nodes are always owned by shared pointers (the builders make them), so a
// node reached by reference can give back its pointer with self().
struct Expr : std::enable_shared_from_this<Expr> {
  const ExprKind kind;
  const DType dtype;  // the type of the value
  Expr(ExprKind k, DType t) : kind(k), dtype(t) {}
  virtual ~Expr() = default;
  ExprP self() const { return shared_from_this(); }
  // The node as its kind's type, after a test of `kind`: e->as<Load>().
  template <class T>
  const T& as() const {
    assert(dynamic_cast<const T*>(this) && "as<T>() on a node of another kind");
    return static_cast<const T&>(*this);
  }
  // True for integer and boolean values (index arithmetic, conditions).
  bool isInt() const { return isIntegral(dtype); }
};

// An integer or boolean constant.
struct IntConst : Expr {
  const int64_t value;
  explicit IntConst(int64_t v, DType t = DType::I64) : Expr(ExprKind::IntConst, t), value(v) {}
};

struct FloatConst : Expr {
  const double value;
  explicit FloatConst(double v, DType t = DType::F64) : Expr(ExprKind::FloatConst, t), value(v) {}
};

// A loop iterator (always int64).
struct Var : Expr {
  const std::string name;
  explicit Var(std::string n) : Expr(ExprKind::Var, DType::I64), name(std::move(n)) {}
};

// An element of a tensor, of the tensor's type. Indices may load too.
struct Load : Expr {
  const std::string tensor;
  const std::vector<ExprP> indices;
  Load(std::string t, std::vector<ExprP> idx, DType type)
      : Expr(ExprKind::Load, type), tensor(std::move(t)), indices(std::move(idx)) {}
};

struct Binary : Expr {
  const BinOp op;
  const ExprP a, b;
  Binary(BinOp o, ExprP x, ExprP y);
};

struct Unary : Expr {
  const UnaryOp op;
  const ExprP a;
  Unary(UnaryOp o, ExprP x);
};

// The value of `a` converted to `dtype` (C's conversion; float to integer truncates).
struct Cast : Expr {
  const ExprP a;
  Cast(DType t, ExprP x) : Expr(ExprKind::Cast, t), a(std::move(x)) {}
};

// cond ? a : b, evaluating only the chosen operand.
struct Select : Expr {
  const ExprP cond, a, b;
  Select(ExprP c, ExprP x, ExprP y)
      : Expr(ExprKind::Select, promote(x->dtype, y->dtype)), cond(std::move(c)), a(std::move(x)), b(std::move(y)) {}
};

// Builders. Integer operands are folded where both are constants and simple
// identities (x+0, x*1, x*0) are applied.
ExprP intConst(int64_t v, DType t = DType::I64);
ExprP boolConst(bool v);
ExprP floatConst(double v, DType t = DType::F64);
ExprP var(const std::string& name);
ExprP load(const std::string& tensor, std::vector<ExprP> indices, DType t);
ExprP binary(BinOp op, ExprP a, ExprP b);
ExprP unary(UnaryOp op, ExprP a);
ExprP cast(DType t, ExprP a);  // a itself when it has type t already
ExprP select(ExprP cond, ExprP a, ExprP b);
ExprP add(ExprP a, ExprP b);
ExprP sub(ExprP a, ExprP b);
ExprP mul(ExprP a, ExprP b);
ExprP floorDiv(ExprP a, ExprP b);
ExprP min(ExprP a, ExprP b);
ExprP max(ExprP a, ExprP b);

// The constant value of an integer expression, if it is one.
bool constValue(const ExprP& e, int64_t* out);
// Structural equality.
bool equal(const ExprP& a, const ExprP& b);
// Does e mention iterator `name`?
bool usesVar(const ExprP& e, const std::string& name);

}  // namespace teml::ir
