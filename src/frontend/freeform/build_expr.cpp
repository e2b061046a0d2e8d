// Expressions: numbers fold at compile time (Python's semantics), the rest
// become element-wise IR expressions; calls are inlined.
#include <cmath>

#include "frontend/freeform/builder.hpp"
#include "ir/printer.hpp"

namespace teml::freeform {

using namespace ir;

namespace {

[[noreturn]] void fail(SourceLoc loc, const std::string& m) { throw UserError(loc, m); }

int64_t floorDivInt(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

}  // namespace

ExprP Builder::toExpr(const Value& v, SourceLoc loc, const char* what) {
  if (v.isNumber()) return constantOf(v, v.numType);
  if (v.kind == Value::Kind::Scalar) return v.expr;
  if (v.kind == Value::Kind::Tensor && v.tensor->shape.empty()) return v.tensor->at({});
  if (v.kind == Value::Kind::Tensor) {
    std::string s;
    for (auto d : v.tensor->shape) s += (s.empty() ? "" : ", ") + std::to_string(d);
    fail(loc, std::string("expected a scalar for ") + what + ", found a tensor of shape (" + s + ")");
  }
  fail(loc, std::string("expected a scalar for ") + what + ", found " + kindWord(v.kind));
}

int64_t Builder::constInt(const NodeP& e, const char* what) {
  Value v = eval(e);
  if (!v.isInteger()) fail(e->loc, std::string(what) + " must be an integer known at compile time");
  return v.i;
}

Value Builder::lookup(const Node& n) {
  for (size_t s = scopes_.size(); s-- > frames_.back().firstScope;) {
    auto it = scopes_[s].names.find(n.text);
    if (it != scopes_[s].names.end()) return it->second;
  }
  if (frames_.back().closure) {
    if (auto v = closureLookup(frames_.back().closure, n.text)) return *v;
  }
  static const std::set<std::string> builtins = {"abs", "min", "max", "float", "int", "range", "len", "slice"};
  if (frames_.back().libop) {  // libop.py: built-ins first, then its own functions
    if (builtins.count(n.text)) return Value::module("builtin." + n.text);
    if (n.text == "teml") return Value::module("teml");
    if (libop_.count(n.text)) return Value::function("libop." + n.text);
    fail(n.loc, "unknown name '" + n.text + "'");
  }
  auto g = globals_.find(n.text);
  if (g != globals_.end()) return g->second;
  if (functions_.count(n.text)) return Value::function(n.text);
  if (auto f = foreign_.find(n.text); f != foreign_.end()) {
    foreignUse_ = n.text;
    fail(n.loc, "'" + n.text + "' is " + f->second +
                    ": a transform can use module-level numbers, functions and teml's modules; other module-level "
                    "code is Python's, which teml does not run");
  }
  if (auto u = unreadFunctions_.find(n.text); u != unreadFunctions_.end()) {
    std::vector<DiagnosticNote> notes = u->second->notes();
    notes.push_back({n.loc, "'" + n.text + "' is used here"});
    throw UserError(u->second->loc(),
                    std::string(u->second->what()) + " (in function '" + n.text + "', used at line " +
                        std::to_string(n.loc.line) + ")",
                    notes);
  }
  if (builtins.count(n.text)) return Value::module("builtin." + n.text);
  fail(n.loc, "unknown name '" + n.text + "'");
}

Value Builder::eval(const NodeP& e) {
  switch (e->kind) {
    case NodeKind::Name: return lookup(*e);
    case NodeKind::Int: return Value::number(e->intValue);
    case NodeKind::Float: return Value::real(e->floatValue);
    case NodeKind::Bool: return Value::number(e->intValue, DType::Bool);
    case NodeKind::Str: return Value::string(e->text);
    case NodeKind::NoneLit: return Value{};
    case NodeKind::BinOp: {
      Value a = eval(e->kids[0]), b = eval(e->kids[1]);
      return binaryOp(e->text, a, b, e->loc);
    }
    case NodeKind::UnaryOp: return unaryOp(e->text, eval(e->kids[0]), e->loc);
    case NodeKind::Compare: return compare(*e);
    case NodeKind::BoolOp: return boolOp(*e);
    case NodeKind::IfExp: return ifExp(*e);
    case NodeKind::Call: return call(*e);
    case NodeKind::Attribute: return attribute(*e);
    case NodeKind::Subscript: return subscript(*e);
    case NodeKind::Tuple:
    case NodeKind::List: {
      std::vector<Value> items;
      for (auto& k : e->kids) items.push_back(eval(k));
      return Value::tuple(items);
    }
    case NodeKind::Slice: fail(e->loc, "a slice is allowed only inside [...]");
    case NodeKind::Dict: fail(e->loc, "a dict is allowed only as what the entry function returns");
    default: fail(e->loc, "not supported in teml programs: this expression");
  }
}

Value Builder::binaryOp(const std::string& op, const Value& a, const Value& b, SourceLoc loc) {
  // Compile-time tuples (shapes, index lists): concatenation and repetition.
  if (a.kind == Value::Kind::Tuple || b.kind == Value::Kind::Tuple) {
    if (op == "+" && a.kind == Value::Kind::Tuple && b.kind == Value::Kind::Tuple) {
      std::vector<Value> items = a.items;
      items.insert(items.end(), b.items.begin(), b.items.end());
      return Value::tuple(items);
    }
    const Value& t = a.kind == Value::Kind::Tuple ? a : b;
    const Value& n = a.kind == Value::Kind::Tuple ? b : a;
    if (op == "*" && n.isInteger()) {
      std::vector<Value> items;
      for (int64_t k = 0; k < n.i && k < 1000; ++k) items.insert(items.end(), t.items.begin(), t.items.end());
      return Value::tuple(items);
    }
    fail(loc, "'" + op + "' on tuples: only tuple + tuple and tuple * integer");
  }
  auto operand = [&](const Value& v) {
    if (v.kind != Value::Kind::Number && v.kind != Value::Kind::Scalar && v.kind != Value::Kind::Tensor)
      fail(loc, "'" + op + "' does not apply to " + kindWord(v.kind));
  };
  operand(a);
  operand(b);
  if (op == "**") {
    if (!b.isInteger()) fail(loc, "'**' takes a constant integer exponent");
    if (a.isInteger() && b.i >= 0) {
      int64_t r = 1;
      for (int64_t k = 0; k < b.i && k < 64; ++k) r *= a.i;
      return Value::number(r);
    }
    if (a.isNumber()) return Value::real(std::pow(a.asDouble(), static_cast<double>(b.i)));
    if (b.i == 0) return elementwise({a}, a.dtype(), loc, [](const std::vector<ExprP>& x) { return convertTo(x[0]->dtype, intConst(1)); });
    if (std::llabs(b.i) > 64) fail(loc, "'**': the exponent is too large (at most 64)");
    int64_t n = std::llabs(b.i);
    bool inverse = b.i < 0;
    DType t = inverse && !isFloat(a.dtype()) ? DType::F64 : a.dtype();
    return elementwise({a}, t, loc, [n, inverse, t](const std::vector<ExprP>& x) {
      ExprP base = convertTo(t, x[0]), p = base;
      for (int64_t k = 1; k < n; ++k) p = binary(BinOp::Mul, p, base);
      return inverse ? binary(BinOp::Div, floatConst(1, t), p) : p;
    });
  }
  if (a.isNumber() && b.isNumber()) {
    bool ints = !isFloat(a.numType) && !isFloat(b.numType);
    if (ints && op != "/") {
      int64_t x = a.i, y = b.i;
      if ((op == "//" || op == "%") && y == 0) fail(loc, "integer division by zero");
      if (op == "+") return Value::number(x + y);
      if (op == "-") return Value::number(x - y);
      if (op == "*") return Value::number(x * y);
      if (op == "//") return Value::number(floorDivInt(x, y));
      return Value::number(x - floorDivInt(x, y) * y);
    }
    double x = a.asDouble(), y = b.asDouble();
    if ((op == "/" || op == "//" || op == "%") && y == 0) fail(loc, "division by zero");
    if (op == "+") return Value::real(x + y);
    if (op == "-") return Value::real(x - y);
    if (op == "*") return Value::real(x * y);
    if (op == "/") return Value::real(x / y);
    if (op == "//") return Value::real(std::floor(x / y));
    return Value::real(x - std::floor(x / y) * y);
  }
  DType t = resultType(a, b);
  if (t == DType::Bool) t = DType::I64;  // arithmetic on bools counts
  if (op == "/" && !isFloat(t)) t = DType::F64;
  BinOp bop = op == "+" ? BinOp::Add : op == "-" ? BinOp::Sub : op == "*" ? BinOp::Mul : op == "/" ? BinOp::Div
              : op == "//" ? BinOp::FloorDiv : BinOp::Mod;
  return elementwise({a, b}, t, loc, [bop, t](const std::vector<ExprP>& x) {
    return binary(bop, convertTo(t, x[0]), convertTo(t, x[1]));
  });
}

Value Builder::unaryOp(const std::string& op, const Value& a, SourceLoc loc) {
  if (a.kind != Value::Kind::Number && a.kind != Value::Kind::Scalar && a.kind != Value::Kind::Tensor)
    fail(loc, "'" + op + "' does not apply to " + kindWord(a.kind));
  if (op == "+") return a;
  if (op == "not") {
    if (a.isNumber()) return Value::number(a.asDouble() == 0, DType::Bool);
    return elementwise({a}, DType::Bool, loc, [](const std::vector<ExprP>& x) {
      return unary(UnaryOp::Not, truthOf(x[0]));
    });
  }
  if (a.isNumber()) return isFloat(a.numType) ? Value::real(-a.f) : Value::number(-a.i);
  DType t = a.dtype() == DType::Bool ? DType::I64 : a.dtype();
  return elementwise({a}, t, loc, [t](const std::vector<ExprP>& x) { return unary(UnaryOp::Neg, convertTo(t, x[0])); });
}

Value Builder::compare(const Node& e) {
  std::vector<Value> v;
  for (auto& k : e.kids) v.push_back(eval(k));
  // a < b < c is (a < b) and (b < c), each operand evaluated once.
  Value acc;
  bool have = false;
  for (size_t k = 0; k + 1 < v.size(); ++k) {
    const std::string& op = e.ops[k];
    BinOp b = op == "<" ? BinOp::Lt : op == "<=" ? BinOp::Le : op == ">" ? BinOp::Gt : op == ">=" ? BinOp::Ge
              : op == "==" ? BinOp::Eq : BinOp::Ne;
    const Value &x = v[k], &y = v[k + 1];
    Value c;
    if (op == "is" || op == "is not") {
      if (x.kind != Value::Kind::None && y.kind != Value::Kind::None)
        fail(e.loc, "'" + op + "' compares with None only");
      c = Value::number((x.kind == y.kind) == (op == "is"), DType::Bool);
    } else if (x.isNumber() && y.isNumber()) {
      bool r = (isFloat(x.numType) || isFloat(y.numType)) ? compareValues(b, x.asDouble(), y.asDouble())
                                                          : compareValues(b, x.i, y.i);
      c = Value::number(r, DType::Bool);
    } else if (x.kind == Value::Kind::String && y.kind == Value::Kind::String && (b == BinOp::Eq || b == BinOp::Ne)) {
      c = Value::number((x.text == y.text) == (b == BinOp::Eq), DType::Bool);
    } else {
      DType t = resultType(x, y);
      c = elementwise({x, y}, DType::Bool, e.loc, [b, t](const std::vector<ExprP>& z) {
        return binary(b, convertTo(t, z[0]), convertTo(t, z[1]));
      });
    }
    if (c.isNumber() && !c.asDouble()) return c;  // the chain is false
    if (c.isNumber()) continue;
    acc = have ? elementwise({acc, c}, DType::Bool, e.loc,
                             [](const std::vector<ExprP>& z) { return binary(BinOp::And, z[0], z[1]); })
               : c;
    have = true;
  }
  return have ? acc : Value::number(1, DType::Bool);
}

Value Builder::boolOp(const Node& e) {
  bool isAnd = e.text == "and";
  Value acc;
  bool have = false;
  for (auto& k : e.kids) {
    Value v = eval(k);
    if (v.kind != Value::Kind::Number && v.kind != Value::Kind::Scalar && v.kind != Value::Kind::Tensor)
      fail(k->loc, "'" + e.text + "' does not apply to " + kindWord(v.kind));
    if (v.isNumber()) {
      bool truth = v.asDouble() != 0;
      if (isAnd && !truth) return Value::number(0, DType::Bool);
      if (!isAnd && truth) return Value::number(1, DType::Bool);
      continue;  // and True / or False: no effect
    }
    Value b = elementwise({v}, DType::Bool, k->loc, [](const std::vector<ExprP>& x) { return truthOf(x[0]); });
    if (!have) {
      acc = b;
      have = true;
      continue;
    }
    BinOp op = isAnd ? BinOp::And : BinOp::Or;
    acc = elementwise({acc, b}, DType::Bool, e.loc, [op](const std::vector<ExprP>& x) { return binary(op, x[0], x[1]); });
  }
  return have ? acc : Value::number(isAnd ? 1 : 0, DType::Bool);
}

Value Builder::ifExp(const Node& e) {
  Value c = eval(e.kids[1]);
  if (c.isNumber()) return c.asDouble() ? eval(e.kids[0]) : eval(e.kids[2]);
  Value a = eval(e.kids[0]), b = eval(e.kids[2]);
  DType t = resultType(a, b);
  return elementwise({c, a, b}, t, e.loc, [t](const std::vector<ExprP>& x) {
    return select(truthOf(x[0]), convertTo(t, x[1]), convertTo(t, x[2]));
  });
}

Value Builder::attribute(const Node& e) {
  Value base = eval(e.kids[0]);
  if (base.kind == Value::Kind::Module) return Value::module(base.text + "." + e.text);
  if (base.kind == Value::Kind::Tensor || base.kind == Value::Kind::Scalar || base.isNumber()) {
    std::vector<int64_t> shape = base.kind == Value::Kind::Tensor ? base.tensor->shape : std::vector<int64_t>{};
    if (e.text == "ndim") return Value::number(static_cast<int64_t>(shape.size()));
    if (e.text == "shape") {
      std::vector<Value> items;
      for (auto d : shape) items.push_back(Value::number(d));
      return Value::tuple(items);
    }
    if (e.text == "dtype") return Value::string(dtypeText(base.dtype()));
  }
  fail(e.loc, std::string("'") + e.text + "' is not an attribute of " + kindWord(base.kind) +
                  " (tensors have ndim, shape and dtype)");
}

namespace {

// An integer expression in int64, the widening pushed through + - * so that
// int64(k + 4) - int64(k) folds to 4.
ExprP widened(const ExprP& e) {
  if (e->dtype == DType::I64) return e;
  if (e->kind == ExprKind::Binary) {
    auto& b = e->as<Binary>();
    if (b.op == BinOp::Add || b.op == BinOp::Sub || b.op == BinOp::Mul) return binary(b.op, widened(b.a), widened(b.b));
  }
  return convertTo(DType::I64, e);
}

}  // namespace

Value Builder::subscript(const Node& e) {
  Value base = eval(e.kids[0]);
  std::vector<NodeP> idx(e.kids.begin() + 1, e.kids.end());
  if (base.kind == Value::Kind::Tuple) {
    if (idx.size() == 1 && idx[0]->kind == NodeKind::Slice) {
      int64_t n = static_cast<int64_t>(base.items.size());
      auto bound = [&](const NodeP& b, int64_t dflt) {
        if (!b) return dflt;
        int64_t v = constInt(b, "a slice bound");
        if (v < 0) v += n;
        return std::min(std::max(v, int64_t{0}), n);
      };
      int64_t lo = bound(idx[0]->kids[0], 0), hi = bound(idx[0]->kids[1], n);
      std::vector<Value> items;
      for (int64_t k = lo; k < hi; ++k) items.push_back(base.items[static_cast<size_t>(k)]);
      return Value::tuple(items);
    }
    if (idx.size() != 1) fail(e.loc, "a tuple takes one integer index");
    int64_t k = constInt(idx[0], "a tuple index");
    int64_t n = static_cast<int64_t>(base.items.size());
    if (k < -n || k >= n) fail(idx[0]->loc, "index " + std::to_string(k) + " out of range for a tuple of " + std::to_string(n));
    return base.items[static_cast<size_t>(k < 0 ? k + n : k)];
  }
  return index(base, idx, e.loc, false);
}

Value Builder::index(const Value& base, const std::vector<NodeP>& indexNodes, SourceLoc loc, bool forWrite) {
  if (base.kind != Value::Kind::Tensor) fail(loc, std::string("only tensors can be indexed, not ") + kindWord(base.kind));
  const TensorValue& t = *base.tensor;
  // The indices as values: a slice written a:b, or a tuple value (built
  // with slice(...)) standing for several indices.
  struct Item {
    Value v;
    SourceLoc loc;
  };
  std::vector<Item> indices;
  for (auto& ix : indexNodes) {
    if (ix->kind == NodeKind::Slice) {
      Value sl;
      sl.kind = Value::Kind::Slice;
      for (auto& b : ix->kids) sl.items.push_back(b ? eval(b) : Value{});
      indices.push_back({sl, ix->loc});
      continue;
    }
    Value v = eval(ix);
    if (v.kind == Value::Kind::Tuple)
      for (auto& item : v.items) indices.push_back({item, ix->loc});
    else
      indices.push_back({v, ix->loc});
  }
  if (indices.size() > t.shape.size())
    fail(loc, "too many indices for a " + std::to_string(t.shape.size()) + "-dimensional tensor: " +
                  std::to_string(indices.size()));
  if (forWrite && !t.isView()) fail(loc, "cannot assign to a computed value");
  // Per view dimension: a fixed index or a range [start, start + length).
  std::vector<ViewDim> view;
  for (size_t k = 0; k < t.shape.size(); ++k) {
    int64_t n = t.shape[k];
    if (k >= indices.size()) {
      view.push_back(ViewDim{nullptr, intConst(0), n});
      continue;
    }
    Value v = indices[k].v;
    SourceLoc at = indices[k].loc;
    std::string what = t.isView() ? t.tensor : "a computed tensor";
    // The dimension of the underlying tensor this view dimension is.
    size_t dim = k;
    if (t.isView()) {
      size_t seen = 0;
      for (size_t d = 0; d < t.dims.size(); ++d)
        if (!t.dims[d].index && seen++ == k) dim = d;
    }
    if (v.kind == Value::Kind::Slice) {
      const Value &start = v.items[0], &stop = v.items[1];
      bool known = (start.kind == Value::Kind::None || start.isInteger()) &&
                   (stop.kind == Value::Kind::None || stop.isInteger());
      if (known) {  // Python's rules: negative bounds count from the end, bounds are clamped
        auto bound = [&](const Value& b, int64_t dflt) {
          if (b.kind == Value::Kind::None) return dflt;
          int64_t x = b.i < 0 ? b.i + n : b.i;
          return std::min(std::max(x, int64_t{0}), n);
        };
        int64_t lo = bound(start, 0), hi = bound(stop, n);
        view.push_back(ViewDim{nullptr, intConst(lo), std::max(hi - lo, int64_t{0})});
        continue;
      }
      // A start computed at run time (x[j:j + K]): the length must still be
      // known, and the whole range lies in the tensor (checked like an index).
      auto boundExpr = [&](const Value& b, ExprP dflt) {
        if (b.kind == Value::Kind::None) return dflt;
        ExprP e = toExpr(b, at, "a slice bound");
        if (!e->isInt()) fail(at, std::string("a slice bound must be an integer, not ") + dtypeText(e->dtype));
        return widened(e);
      };
      ExprP lo = boundExpr(start, intConst(0)), hi = boundExpr(stop, intConst(n));
      int64_t length;
      if (!constValue(sub(hi, lo), &length))
        fail(at, "the length of a slice must be known at compile time: (" + toString(hi) + ") - (" + toString(lo) +
                     ") is not a constant");
      length = std::max<int64_t>(length, 0);  // a stop before the start: empty, as in Python
      if (length > 0) {
        lo = checkedIndex(lo, n, what, dim, at);
        checkedIndex(add(lo, intConst(length - 1)), n, what, dim, at);
      }
      view.push_back(ViewDim{nullptr, lo, length});
      continue;
    }
    if (v.isInteger() && v.i < 0 && v.i >= -n) v = Value::number(v.i + n);  // x[-1]: the last element
    ExprP i = toExpr(v, at, "an index");
    if (!i->isInt()) fail(at, std::string("an index must be an integer, not ") + dtypeText(i->dtype));
    i = convertTo(DType::I64, i);
    i = checkedIndex(i, n, what, dim, at);
    view.push_back(ViewDim{i, nullptr, 0});
  }
  auto out = std::make_shared<TensorValue>();
  out->dtype = t.dtype;
  for (auto& d : view)
    if (!d.index) out->shape.push_back(d.length);
  // Compose with the base: view index -> base index.
  auto baseIndex = [view](const std::vector<ExprP>& idx) {
    std::vector<ExprP> b;
    size_t k = 0;
    for (auto& d : view) b.push_back(d.index ? d.index : add(d.start, idx.at(k++)));
    return b;
  };
  if (t.isView()) {
    out->tensor = t.tensor;
    out->fullShape = t.fullShape;
    size_t k = 0;
    for (auto& d : t.dims) {
      if (d.index) {
        out->dims.push_back(d);
        continue;
      }
      const ViewDim& v = view[k++];
      if (v.index) out->dims.push_back(ViewDim{add(d.start, v.index), nullptr, 0});
      else out->dims.push_back(ViewDim{nullptr, add(d.start, v.start), v.length});
    }
    std::string name = t.tensor;
    DType dt = t.dtype;
    auto dims = out->dims;
    out->at = [name, dt, dims](const std::vector<ExprP>& idx) {
      std::vector<ExprP> u;
      size_t j = 0;
      for (auto& d : dims) u.push_back(d.index ? d.index : add(d.start, idx.at(j++)));
      return load(name, u, dt);
    };
  } else {
    TensorP src = base.tensor;
    out->at = [src, baseIndex](const std::vector<ExprP>& idx) { return src->at(baseIndex(idx)); };
  }
  // Every dimension fixed: a 0-d view (an argument a function may write through).
  if (out->shape.empty() && !t.isView()) return Value::scalar(out->at({}));
  return Value::ofTensor(out);
}

Value Builder::call(const Node& e) {
  Value callee = eval(e.kids[0]);
  std::vector<Value> args;
  for (size_t k = 1; k < e.kids.size(); ++k) args.push_back(eval(e.kids[k]));
  if (callee.kind == Value::Kind::Function) {
    if (callee.text.rfind("libop.", 0) == 0) return inlineCall(*libop_.at(callee.text.substr(6)), e, args, true);
    if (callee.def) return inlineCall(*callee.def, e, args, false, callee.closure);
    return inlineCall(*functions_.at(callee.text), e, args, false);
  }
  if (callee.kind == Value::Kind::Module && callee.text.rfind("teml.libop.", 0) == 0) {
    auto f = libop_.find(callee.text.substr(11));
    if (f == libop_.end() || f->first[0] == '_') fail(e.loc, "unknown function '" + callee.text + "'");
    return inlineCall(*f->second, e, args, true);
  }
  if (callee.kind == Value::Kind::Tuple) {  // x.shape(k)
    if (args.size() != 1 || !args[0].isInteger()) fail(e.loc, "shape(k) takes one integer constant");
    int64_t n = static_cast<int64_t>(callee.items.size()), k = args[0].i;
    if (k < -n || k >= n) fail(e.kids[1]->loc, "dimension " + std::to_string(k) + " does not exist (the tensor has " + std::to_string(n) + ")");
    return callee.items[static_cast<size_t>(k < 0 ? k + n : k)];
  }
  if (callee.kind != Value::Kind::Module) fail(e.loc, std::string("this is ") + kindWord(callee.kind) + ", not a function");
  std::string name = callee.text;
  if (name.rfind("builtin.", 0) == 0) name = name.substr(8);
  else if (name.rfind("teml.", 0) == 0) name = name.substr(5);
  else fail(e.loc, "unknown function '" + callee.text + "'");
  return builtin(name, e, args);
}

Value Builder::inlineCall(const Node& fn, const Node& e, const std::vector<Value>& args, bool libop, uint64_t closure) {
  // An error inside teml.libop is reported at the user's call.
  if (libop && !frames_.back().libop) {
    try {
      return inlineCall(fn, e, args, true, closure, true);
    } catch (const UserError& err) {
      throw UserError(e.loc, "teml.libop." + fn.text + ": " + err.what());
    }
  }
  return inlineCall(fn, e, args, libop, closure, true);
}

std::optional<Value> Builder::closureLookup(uint64_t closure, const std::string& name) {
  for (size_t f = frames_.size(); f-- > 0;) {
    if (frames_[f].serial != closure) continue;
    // The defining call's scopes: from its first up to the next call's first.
    size_t end = f + 1 < frames_.size() ? frames_[f + 1].firstScope : scopes_.size();
    for (size_t s = end; s-- > frames_[f].firstScope;) {
      auto it = scopes_[s].names.find(name);
      if (it != scopes_[s].names.end()) return it->second;
    }
    if (frames_[f].closure) return closureLookup(frames_[f].closure, name);
    return std::nullopt;
  }
  return std::nullopt;
}

uint64_t Builder::pushFrame(Frame f) {
  uint64_t serial = f.serial = ++framesMade_;
  frames_.push_back(std::move(f));
  return serial;
}

Value Builder::inlineCall(const Node& fn, const Node& e, const std::vector<Value>& args, bool libop, uint64_t closure,
                          bool) {
  if (closure) {
    bool alive = false;
    for (auto& f : frames_) alive = alive || f.serial == closure;
    if (!alive) fail(e.loc, "'" + fn.text + "' is called after the function it is defined in returned");
  }
  if (frames_.size() > 64)
    fail(e.loc, "calls nest more than 64 deep: does partial evaluation end the recursion of '" + fn.text + "'?");
  size_t positional = args.size() - e.keywords.size();
  if (positional > fn.params.size())
    fail(e.loc, "'" + fn.text + "' takes " + std::to_string(fn.params.size()) + " arguments, not " + std::to_string(args.size()));
  Scope scope;
  for (size_t k = 0; k < positional; ++k) scope.names[fn.params[k]->text] = args[k];
  for (size_t j = 0; j < e.keywords.size(); ++j) {
    bool known = false;
    for (auto& p : fn.params) known = known || p->text == e.keywords[j];
    if (!known) fail(e.loc, "'" + fn.text + "' takes no keyword argument '" + e.keywords[j] + "'");
    if (scope.names.count(e.keywords[j])) fail(e.loc, "argument '" + e.keywords[j] + "' of '" + fn.text + "' is given twice");
    scope.names[e.keywords[j]] = args[positional + j];
  }
  for (auto& p : fn.params) {
    if (scope.names.count(p->text)) continue;
    if (!p->kids[1]) fail(e.loc, "'" + fn.text + "' is missing argument '" + p->text + "'");
    scope.names[p->text] = eval(p->kids[1]);  // a default value: a constant
  }
  size_t callerScope = scopes_.size() - 1;
  scopes_.push_back(std::move(scope));
  Frame frame{fn.text, scopes_.size() - 1, std::nullopt, libop, assignedAgain(fn.kids)};
  frame.closure = closure;
  pushFrame(std::move(frame));
  int branches = runtimeBranches_;
  runtimeBranches_ = 0;  // a return is judged within the function
  std::vector<StmtP> body = statements(fn.kids);
  runtimeBranches_ = branches;
  Frame done = frames_.back();
  frames_.pop_back();
  // The function's tensors live on in the caller's scope (a returned tensor is used there).
  auto& tensors = scopes_.back().tensors;
  scopes_[callerScope].tensors.insert(scopes_[callerScope].tensors.end(), tensors.begin(), tensors.end());
  scopes_.pop_back();
  prelude_.insert(prelude_.end(), body.begin(), body.end());
  return done.returned ? *done.returned : Value{};
}

}  // namespace teml::freeform
