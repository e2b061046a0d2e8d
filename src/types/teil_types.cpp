#include "types/teil_types.hpp"

#include <sstream>

namespace teml::types {

std::string shapeText(const Shape& s) {
  std::string t = "[";
  for (size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + "]";
}

const char* redName(RedKind k) {
  switch (k) {
    case RedKind::Sum: return "red+";
    case RedKind::Product: return "red*";
    case RedKind::Max: return "redmax";
    case RedKind::Min: return "redmin";
  }
  return "red";
}

std::string toString(const TExpr& e) {
  auto arg = [](const TExprP& k) {
    std::string t = toString(*k);
    return k->op == TOp::Var || k->op == TOp::Paren ? t : "(" + t + ")";
  };
  std::string ints;
  for (auto i : e.ints) ints += " " + std::to_string(i);
  switch (e.op) {
    case TOp::Var: return e.name;
    case TOp::Paren: return "(" + toString(*e.kids[0]) + ")";
    case TOp::Add: return "add " + arg(e.kids[0]) + " " + arg(e.kids[1]);
    case TOp::Mul: return "mul " + arg(e.kids[0]) + " " + arg(e.kids[1]);
    case TOp::Prod: return "prod " + arg(e.kids[0]) + " " + arg(e.kids[1]);
    case TOp::Red: return std::string(redName(e.red)) + ints + " " + arg(e.kids[0]);
    case TOp::Transp: return "transp" + ints + " " + arg(e.kids[0]);
    case TOp::Diag: return "diag" + ints + " " + arg(e.kids[0]);
    case TOp::Expa: return "expa" + ints + " " + arg(e.kids[0]);
    case TOp::Proj: return "proj" + ints + " " + arg(e.kids[0]);
    case TOp::Contr: return "contr" + ints + " " + arg(e.kids[0]);
    case TOp::Scale: {
      std::ostringstream f;
      f << e.factor;
      return "scale " + f.str() + " " + arg(e.kids[0]);
    }
  }
  return "?";
}

namespace {

[[noreturn]] void refuse(const TExpr& e, const std::string& rule, const std::string& why) {
  throw UserError(e.loc, rule + ": " + why);
}

// Position p (from 1) must name a dimension of shape s.
void position(const TExpr& e, const std::string& rule, int64_t p, const Shape& s, const std::string& what) {
  if (p < 1 || p > static_cast<int64_t>(s.size()))
    refuse(e, rule, what + " " + std::to_string(p) + " is not a dimension of an expression of shape " + shapeText(s) +
                        " (dimensions count from 1)");
}

}  // namespace

Shape typeOf(const TExpr& e, const Context& ctx) {
  switch (e.op) {
    case TOp::Var: {
      auto it = ctx.find(e.name);
      if (it == ctx.end()) throw UserError(e.loc, "T-Var: '" + e.name + "' is not allocated");
      return it->second;
    }
    case TOp::Paren:
    case TOp::Scale: return typeOf(*e.kids[0], ctx);
    case TOp::Add: {
      Shape a = typeOf(*e.kids[0], ctx), b = typeOf(*e.kids[1], ctx);
      if (a != b) refuse(e, "T-Add", "add needs operands of one shape, not " + shapeText(a) + " and " + shapeText(b));
      return a;
    }
    case TOp::Mul: {
      Shape a = typeOf(*e.kids[0], ctx), b = typeOf(*e.kids[1], ctx);
      if (a.empty()) return b;  // T-SMul: a scalar times a tensor
      if (a != b)
        refuse(e, "T-Mul", "mul needs operands of one shape (or a scalar first, T-SMul), not " + shapeText(a) + " and " +
                               shapeText(b));
      return a;
    }
    case TOp::Prod: {
      Shape a = typeOf(*e.kids[0], ctx), b = typeOf(*e.kids[1], ctx);
      a.insert(a.end(), b.begin(), b.end());
      return a;
    }
    case TOp::Red: {
      Shape s = typeOf(*e.kids[0], ctx);
      position(e, "T-Red", e.ints[0], s, std::string(redName(e.red)) + ": position");
      s.erase(s.begin() + (e.ints[0] - 1));
      return s;
    }
    case TOp::Transp: {
      Shape s = typeOf(*e.kids[0], ctx);
      position(e, "T-Transp", e.ints[0], s, "transp: position");
      position(e, "T-Transp", e.ints[1], s, "transp: position");
      std::swap(s[e.ints[0] - 1], s[e.ints[1] - 1]);
      return s;
    }
    case TOp::Diag:
    case TOp::Contr: {
      Shape s = typeOf(*e.kids[0], ctx);
      const char* word = e.op == TOp::Diag ? "diag" : "contr";
      position(e, "T-Diag", e.ints[0], s, std::string(word) + ": position");
      position(e, "T-Diag", e.ints[1], s, std::string(word) + ": position");
      int64_t i0 = e.ints[0], i1 = e.ints[1];
      if (i0 >= i1)
        refuse(e, "T-Diag", std::string(word) + " " + std::to_string(i0) + " " + std::to_string(i1) +
                                ": the first position must come before the second");
      if (s[i0 - 1] != s[i1 - 1])
        refuse(e, "T-Diag", std::string(word) + " " + std::to_string(i0) + " " + std::to_string(i1) +
                                " of an expression of shape " + shapeText(s) + ": dimension " + std::to_string(i0) +
                                " has size " + std::to_string(s[i0 - 1]) + " but dimension " + std::to_string(i1) +
                                " has size " + std::to_string(s[i1 - 1]));
      s.erase(s.begin() + (i1 - 1));
      if (e.op == TOp::Contr) s.erase(s.begin() + (i0 - 1));  // contr i0 i1 e = red+ i0 (diag i0 i1 e)
      return s;
    }
    case TOp::Expa: {
      Shape s = typeOf(*e.kids[0], ctx);
      int64_t i = e.ints[0], n = e.ints[1];
      if (i < 1 || i > static_cast<int64_t>(s.size()) + 1)
        refuse(e, "T-Expa", "expa: position " + std::to_string(i) + " is not between 1 and " +
                                std::to_string(s.size() + 1) + " for an expression of shape " + shapeText(s));
      if (n < 1) refuse(e, "T-Expa", "expa: the new dimension's size " + std::to_string(n) + " is not positive");
      if (n > (int64_t(1) << 36)) refuse(e, "T-Expa", "expa: the new dimension's size " + std::to_string(n) + " is too large");
      s.insert(s.begin() + (i - 1), n);
      return s;
    }
    case TOp::Proj: {
      Shape s = typeOf(*e.kids[0], ctx);
      position(e, "T-Proj", e.ints[0], s, "proj: position");
      int64_t i = e.ints[0], m = e.ints[1];
      if (m < 1 || m > s[i - 1])
        refuse(e, "T-Proj", "proj " + std::to_string(i) + " " + std::to_string(m) + " of an expression of shape " +
                                shapeText(s) + ": slice " + std::to_string(m) + " is not between 1 and " +
                                std::to_string(s[i - 1]));
      s.erase(s.begin() + (i - 1));
      return s;
    }
  }
  throw InternalError("TeIL typing: unknown operation");
}

}  // namespace teml::types
