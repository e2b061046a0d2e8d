// Expressions of the loop IR. Nodes are immutable and shared; build them with
// the helper functions at the bottom, which fold integer constants so that
// the printed IR and generated C stay readable.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace teml::ir {

enum class DType { F64, F32 };
const char* dtypeName(DType t);  // "double" / "float"

enum class ExprKind {
#define TEML_EXPR_NODE(Kind) Kind,
#include "ir/nodes.def"
};

// Add..Div apply to numbers; FloorDiv, Mod, Min, Max to integers; Lt, Le, Eq, And
// give 0/1 integers (used by guards).
enum class BinOp { Add, Sub, Mul, Div, FloorDiv, Mod, Min, Max, Lt, Le, Eq, And };
const char* binOpName(BinOp op);
// C-like precedence of an infix operator; 6 for those printed as calls (min, max, ...).
int precedence(BinOp op);

struct Expr;
using ExprP = std::shared_ptr<const Expr>;

// Nodes are always owned by shared pointers (the builders make them), so a
// node reached by reference can give back its pointer with self().
struct Expr : std::enable_shared_from_this<Expr> {
  const ExprKind kind;
  explicit Expr(ExprKind k) : kind(k) {}
  virtual ~Expr() = default;
  ExprP self() const { return shared_from_this(); }
  // True for index arithmetic (constants, iterators and their combinations).
  bool isInt() const;
};

struct IntConst : Expr {
  const int64_t value;
  explicit IntConst(int64_t v) : Expr(ExprKind::IntConst), value(v) {}
};

struct FloatConst : Expr {
  const double value;
  explicit FloatConst(double v) : Expr(ExprKind::FloatConst), value(v) {}
};

// A loop iterator.
struct Var : Expr {
  const std::string name;
  explicit Var(std::string n) : Expr(ExprKind::Var), name(std::move(n)) {}
};

// An element of a tensor. Loads are the only floating-point leaves besides constants.
struct Load : Expr {
  const std::string tensor;
  const std::vector<ExprP> indices;
  Load(std::string t, std::vector<ExprP> idx)
      : Expr(ExprKind::Load), tensor(std::move(t)), indices(std::move(idx)) {}
};

struct Binary : Expr {
  const BinOp op;
  const ExprP a, b;
  Binary(BinOp o, ExprP x, ExprP y) : Expr(ExprKind::Binary), op(o), a(std::move(x)), b(std::move(y)) {}
};

// Builders. Integer operands are folded where both are constants and simple
// identities (x+0, x*1, x*0) are applied.
ExprP intConst(int64_t v);
ExprP floatConst(double v);
ExprP var(const std::string& name);
ExprP load(const std::string& tensor, std::vector<ExprP> indices);
ExprP binary(BinOp op, ExprP a, ExprP b);
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
