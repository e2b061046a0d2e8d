// TeIL's tensor expressions and their static semantics (the TeIL paper's
// Figure 8): every expression has a shape, a list of dimension sizes, and an
// expression that has one never reads outside a tensor. The rules are
// implemented once, here, for every front end that lowers through TeIL.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "diag/diagnostics.hpp"

namespace teml::types {

using Shape = std::vector<int64_t>;

// Scale (a constant times an expression) has no syntax: rewriting makes it
// (red+ i (expa i n e) = n * e); its factor is in `factor`.
enum class TOp { Var, Paren, Add, Mul, Prod, Red, Transp, Diag, Expa, Proj, Contr, Scale };
enum class RedKind { Sum, Product, Max, Min };

struct TExpr;
using TExprP = std::shared_ptr<const TExpr>;

// One node: `ints` holds the integer arguments in source order (red: i;
// transp, diag, contr: i0 i1; expa: i n; proj: i m), positions counting from 1.
struct TExpr {
  TOp op;
  std::string name;  // Var
  RedKind red = RedKind::Sum;
  std::vector<int64_t> ints;
  std::vector<TExprP> kids;
  SourceLoc loc;
  double factor = 1;  // Scale
};

using Context = std::map<std::string, Shape>;  // allocated tensor -> shape

// The shape of e in ctx, or a UserError at the offending node that names the
// rule (T-Add, T-Diag, ...) and the shapes involved.
Shape typeOf(const TExpr& e, const Context& ctx);

std::string shapeText(const Shape& s);  // "[3, 4]"
std::string toString(const TExpr& e);   // TeIL syntax (Scale as "scale n e")
const char* redName(RedKind k);         // "red+", "red*", "redmax", "redmin"

}  // namespace teml::types
