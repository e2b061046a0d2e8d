#include "codegen/c_expr.hpp"

#include "codegen/c_names.hpp"
#include "codegen/c_text.hpp"
#include "ir/functor.hpp"
#include "ir/mutator.hpp"

#include <cstdlib>
#include <cstring>

namespace teml::codegen {

using namespace ir;

namespace {
// Computing e cannot fault: it loads only scalars and divides no integers.
bool withoutTraps(const ExprP& e) {
  bool safe = true;
  forEachExpr(e, [&](const ExprP& x) {
    if (x->kind == ExprKind::Load) safe = safe && x->as<Load>().indices.empty();
    if (x->kind == ExprKind::Binary) {
      auto op = x->as<Binary>().op;
      safe = safe && !(x->isInt() && (op == BinOp::Div || op == BinOp::FloorDiv || op == BinOp::Mod));
    }
  });
  return safe;
}

// A bug planted on purpose, for the fuzzing oracle's reducer test alone
// (tests/fuzz/test_reducer.py): with TEML_PLANTED_BUG=flip_sub in the
// environment of the process that generates the C, a float subtraction is
// emitted as an addition. The changed C is hashed into the kernel's cache
// key (runtime/jit.cpp), so planted kernels never stand in for real ones.
bool plantedFlipSub() {
  static const bool on = [] {
    const char* v = std::getenv("TEML_PLANTED_BUG");
    return v && std::strcmp(v, "flip_sub") == 0;
  }();
  return on;
}

// int32 arithmetic wraps, as in the interpreter: it is computed in long and
// converted back to int, which keeps the low 32 bits (GCC's documented
// conversion), where int arithmetic that overflows would be undefined and
// the long helpers (teml_abs, teml_floordiv) would keep the wide value.
bool wrapsToInt32(const Binary& b) {
  switch (b.op) {
    case BinOp::Add: case BinOp::Sub: case BinOp::Mul: case BinOp::Div: case BinOp::FloorDiv: case BinOp::Mod:
      return b.dtype == DType::I32;
    default: return false;
  }
}
std::string toInt32(const std::string& wide) { return "((" + std::string(cType(DType::I32)) + ")(" + wide + "))"; }

class ScalarExpr : public ExprFunctor<std::string(int, bool, bool)> {
 public:
  explicit ScalarExpr(const CExprNames& names) : names_(names) {}
  std::string of(const ExprP& e, int parent, bool right, bool single) { return dispatch(e, parent, right, single); }

 private:
  std::string visitIntConst(const IntConst& c, int, bool, bool) override { return std::to_string(c.value); }
  std::string visitFloatConst(const FloatConst& c, int, bool, bool single) override {
    return floatLiteral(c.value, single);
  }
  std::string visitVar(const Var& v, int, bool, bool) override { return names_.iterator(v.name); }
  std::string visitLoad(const Load& l, int, bool, bool) override { return names_.element(l.tensor, l.indices); }
  std::string visitBinary(const Binary& b, int parent, bool right, bool single) override {
    bool ints = b.a->isInt() && b.b->isInt();
    auto call = [&](const std::string& f) { return f + "(" + of(b.a, 0, false, single) + ", " + of(b.b, 0, false, single) + ")"; };
    bool f32 = single || b.dtype == DType::F32;
    if (wrapsToInt32(b)) {
      if (b.op == BinOp::Add || b.op == BinOp::Sub || b.op == BinOp::Mul)
        return toInt32("(long)(" + of(b.a, 0, false, single) + ") " + binOpName(b.op) + " (" + of(b.b, 0, false, single) + ")");
      return toInt32(call(b.op == BinOp::Mod ? "teml_mod" : "teml_floordiv"));
    }
    switch (b.op) {
      case BinOp::Div:
        if (ints) return call("teml_floordiv");  // integer division rounds down, as in the interpreter
        break;
      case BinOp::FloorDiv: return ints ? call("teml_floordiv") : call(f32 ? "teml_floordivf" : "teml_floordivd");
      case BinOp::Mod: return ints ? call("teml_mod") : call(f32 ? "teml_modf" : "teml_modd");
      case BinOp::Min:
      case BinOp::Max:
        if (ints) return call(b.op == BinOp::Min ? "teml_min" : "teml_max");
        return call(std::string(b.op == BinOp::Min ? (f32 ? "teml_minf" : "teml_mind") : (f32 ? "teml_maxf" : "teml_maxd")) +
                    (names_.inVectorLanes ? "_lanes" : ""));
      default: break;
    }
    // Both sides of `and`/`or` computed, as bitwise & and |, where the right
    // one is safe to compute always: no branch then, so a loop testing
    // several conditions (SoftRas's inside test) stays in SIMD lanes.
    if ((b.op == BinOp::And || b.op == BinOp::Or) && b.a->dtype == DType::Bool && b.b->dtype == DType::Bool &&
        withoutTraps(b.b))
      return "((" + of(b.a, 0, false, single) + (b.op == BinOp::And ? ") & (" : ") | (") + of(b.b, 0, false, single) + "))";
    int p = precedence(b.op);
    std::string name = binOpName(b.op);
    if (b.op == BinOp::Sub && !ints && plantedFlipSub()) name = "+";
    std::string s = of(b.a, p, false, single) + " " + name + " " + of(b.b, p, true, single);
    return (p < parent || (p == parent && right)) ? "(" + s + ")" : s;
  }
  std::string visitUnary(const Unary& u, int, bool, bool single) override {
    std::string x = of(u.a, 0, false, single);
    bool f32 = u.dtype == DType::F32;
    switch (u.op) {
      case UnaryOp::Neg: return u.dtype == DType::I32 ? toInt32("-(long)(" + x + ")") : "(-(" + x + "))";
      case UnaryOp::Not: return "(!(" + x + "))";
      case UnaryOp::Abs:
        if (u.dtype == DType::I32) return toInt32("teml_abs(" + x + ")");
        return u.isInt() ? "teml_abs(" + x + ")" : std::string(f32 ? "fabsf(" : "fabs(") + x + ")";
      case UnaryOp::Sigmoid: return std::string(f32 ? "teml_sigmoidf(" : "teml_sigmoid(") + x + ")";
      case UnaryOp::Exp: return std::string(f32 ? "teml_expf(" : "teml_exp(") + x + ")";  // the target's prelude
      default: return std::string(unaryOpName(u.op)) + (f32 ? "f(" : "(") + x + ")";  // exp, log, ... of math.h
    }
  }
  std::string visitCast(const Cast& c, int, bool, bool single) override {
    return "((" + std::string(cType(c.dtype)) + ")(" + of(c.a, 0, false, single) + "))";
  }
  std::string visitSelect(const Select& s, int, bool, bool single) override {
    return "(" + of(s.cond, 0, false, false) + " ? " + of(s.a, 0, false, single) + " : " + of(s.b, 0, false, single) +
           ")";
  }

  const CExprNames& names_;
};

}  // namespace

std::string cExpr(const ExprP& e, const CExprNames& names, int parent, bool right, bool single) {
  return ScalarExpr(names).of(e, parent, right, single);
}

}  // namespace teml::codegen
