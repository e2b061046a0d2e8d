// Element-wise values with NumPy's broadcasting and the contract's type
// rules (a Python number takes the type of the tensor it meets).
#include "frontend/freeform/builder.hpp"
#include "ir/accesses.hpp"
#include "ir/mutator.hpp"

namespace teml::freeform {

using namespace ir;

namespace {
std::string shapeText(const std::vector<int64_t>& s) {
  std::string t = "(";
  for (size_t k = 0; k < s.size(); ++k) t += (k ? ", " : "") + std::to_string(s[k]);
  return t + (s.size() == 1 ? ",)" : ")");
}
}  // namespace

ExprP convertTo(DType t, const ExprP& e) {
  if (e->dtype == t) return e;
  if (e->kind == ExprKind::IntConst) {
    int64_t v = e->as<IntConst>().value;
    return isFloat(t) ? floatConst(static_cast<double>(v), t) : t == DType::Bool ? boolConst(v != 0) : intConst(v, t);
  }
  if (e->kind == ExprKind::FloatConst && isFloat(t)) return floatConst(e->as<FloatConst>().value, t);
  return cast(t, e);
}

ExprP truthOf(const ExprP& e) {
  return e->dtype == DType::Bool ? e : binary(BinOp::Ne, e, convertTo(e->dtype, intConst(0)));
}

TensorP Builder::asTensor(const Value& v, SourceLoc loc) {
  if (v.kind == Value::Kind::Tensor) return v.tensor;
  if (v.kind != Value::Kind::Number && v.kind != Value::Kind::Scalar)
    throw UserError(loc, std::string("expected a number or a tensor, found ") + kindWord(v.kind));
  auto t = std::make_shared<TensorValue>();
  ExprP e = toExpr(v, loc, "a value");
  t->dtype = e->dtype;
  t->at = [e](const std::vector<ExprP>&) { return e; };
  return t;
}

std::vector<int64_t> Builder::broadcastShape(const std::vector<std::vector<int64_t>>& shapes, SourceLoc loc) {
  size_t rank = 0;
  for (auto& s : shapes) rank = std::max(rank, s.size());
  std::vector<int64_t> out(rank, 1);
  for (auto& s : shapes)
    for (size_t k = 0; k < s.size(); ++k) {
      int64_t& o = out[rank - s.size() + k];
      if (s[k] == o || s[k] == 1) continue;
      if (o != 1) {
        std::string all;
        for (auto& x : shapes) all += (all.empty() ? "" : " and ") + shapeText(x);
        throw UserError(loc, "shapes " + all + " do not broadcast together");
      }
      o = s[k];
    }
  return out;
}

DType Builder::resultType(const Value& a, const Value& b) const {
  auto weakWith = [](const Value& number, DType other) {
    if (isFloat(number.numType) && !isFloat(other)) return DType::F64;
    if (other == DType::Bool && number.numType != DType::Bool) return number.numType;
    return other;
  };
  if (a.isNumber() && b.isNumber()) return promote(a.numType, b.numType);
  if (a.isNumber()) return weakWith(a, b.dtype());
  if (b.isNumber()) return weakWith(b, a.dtype());
  return promote(a.dtype(), b.dtype());
}

ExprP Builder::constantOf(const Value& n, DType dtype) const {
  if (isFloat(dtype)) return floatConst(n.asDouble(), dtype);
  if (dtype == DType::Bool) return boolConst(n.asDouble() != 0);
  return intConst(isFloat(n.numType) ? static_cast<int64_t>(n.f) : n.i, dtype);
}

Value Builder::elementwise(const std::vector<Value>& operands, DType dtype, SourceLoc loc,
                           const std::function<ExprP(const std::vector<ExprP>&)>& f) {
  std::vector<TensorP> ts;
  std::vector<std::vector<int64_t>> shapes;
  for (auto& v : operands) {
    if (v.isNumber()) {
      // A Python number becomes a constant of the operation's type.
      auto t = std::make_shared<TensorValue>();
      ExprP c = constantOf(v, v.numType);  // the operation converts it (convertTo)
      t->dtype = c->dtype;
      t->at = [c](const std::vector<ExprP>&) { return c; };
      ts.push_back(t);
    } else {
      ts.push_back(asTensor(v, loc));
    }
    shapes.push_back(ts.back()->shape);
  }
  std::vector<int64_t> shape = broadcastShape(shapes, loc);
  auto elementAt = [ts, shape, f](const std::vector<ExprP>& idx) {
    std::vector<ExprP> vals;
    for (auto& t : ts) {
      std::vector<ExprP> own;
      size_t skip = shape.size() - t->shape.size();
      for (size_t k = 0; k < t->shape.size(); ++k) own.push_back(t->shape[k] == 1 ? intConst(0) : idx[skip + k]);
      vals.push_back(t->at(own));
    }
    return f(vals);
  };
  if (shape.empty()) return Value::scalar(elementAt({}));
  auto out = std::make_shared<TensorValue>();
  out->shape = shape;
  out->at = elementAt;
  out->dtype = dtype;
  return Value::ofTensor(out);
}

std::vector<StmtP> Builder::storeInto(const TensorValue& target, const Value& value, std::optional<ReduceOp> op,
                                      bool divide, SourceLoc loc) {
  if (auto a = access_.find(target.tensor); a != access_.end() && a->second == Access::Input)
    throw UserError(loc, "'" + target.tensor + "' is an input of the entry function; declare it \"inout\" to write it");
  TensorP src = asTensor(value, loc);
  DType vt = value.isNumber() ? value.numType : src->dtype;
  if (isIntegral(target.dtype) && isFloat(vt))
    throw UserError(loc, std::string("assigning a float value to ") + dtypeName(target.dtype) + " tensor '" + target.tensor +
                             "' needs int(...)");
  if (target.dtype == DType::Bool && vt != DType::Bool)
    throw UserError(loc, std::string("assigning a ") + dtypeName(vt) + " value to bool tensor '" + target.tensor + "'");
  bool fits = src->shape.size() <= target.shape.size();
  for (size_t k = 0; fits && k < src->shape.size(); ++k) {
    int64_t d = src->shape[src->shape.size() - 1 - k];
    fits = d == 1 || d == target.shape[target.shape.size() - 1 - k];
  }
  if (!fits)
    throw UserError(loc, "cannot assign a value of shape " + shapeText(src->shape) + " to '" + target.tensor +
                             "' of shape " + shapeText(target.shape));
  auto valueAt = [&](const std::vector<ExprP>& idx) {
    std::vector<ExprP> own;
    size_t skip = target.shape.size() - src->shape.size();
    for (size_t k = 0; k < src->shape.size(); ++k) own.push_back(src->shape[k] == 1 ? intConst(0) : idx[skip + k]);
    ExprP v = value.isNumber() ? constantOf(value, target.dtype) : src->at(own);
    return convertTo(target.dtype, v);
  };
  // Loops over the target's elements.
  std::vector<std::string> vars;
  std::vector<ExprP> idx;
  for (size_t d = 0; d < target.shape.size(); ++d) {
    vars.push_back(freshName("e" + std::to_string(d)));
    idx.push_back(var(vars.back()));
  }
  std::vector<ExprP> where = target.underlying(idx);
  ExprP v = valueAt(idx);
  // NumPy evaluates the right side first: when it reads other elements of
  // the target, go through a temporary.
  bool aliased = false;
  forEachExpr(v, [&](const ExprP& e) {
    if (e->kind != ExprKind::Load) return;
    auto& l = e->as<Load>();
    if (l.tensor != target.tensor) return;
    bool same = l.indices.size() == where.size();
    for (size_t k = 0; same && k < where.size(); ++k) same = equal(l.indices[k], where[k]);
    if (!same) aliased = true;
  });
  if (aliased && !target.shape.empty()) {
    TensorP tmp = defineTensor("tmp", target.shape, target.dtype, loc);
    auto first = storeInto(*tmp, value, std::nullopt, false, loc);
    auto second = storeInto(target, Value::ofTensor(tmp), op, divide, loc);
    first.insert(first.end(), second.begin(), second.end());
    return first;
  }
  // The statement's identity for the dependence analysis: a fresh id and
  // the iterators around it (docs/ir.md, StmtTag).
  StmtTag tag{"S" + std::to_string(statementCount_++), {}, {}};
  for (auto& it : iterators_) tag.names.push_back(it.var);
  tag.names.insert(tag.names.end(), vars.begin(), vars.end());
  for (auto& n : tag.names) tag.origin.push_back(var(n));
  // y[i] = y[i] + e, y[i] = max(y[i], e) (also *, min; either operand):
  // a reduction, as FreeTensor's make_reduction makes it, so that the
  // dependence analysis knows the updates commute.
  if (!divide && !op && v->kind == ExprKind::Binary) {
    auto& b = v->as<Binary>();
    std::optional<ReduceOp> kind = b.op == BinOp::Add ? std::optional(ReduceOp::Add)
                                   : b.op == BinOp::Mul ? std::optional(ReduceOp::Mul)
                                   : b.op == BinOp::Max ? std::optional(ReduceOp::Max)
                                   : b.op == BinOp::Min ? std::optional(ReduceOp::Min)
                                                        : std::nullopt;
    auto isTarget = [&](const ExprP& e) {
      if (e->kind != ExprKind::Load || e->as<Load>().tensor != target.tensor || e->dtype != target.dtype) return false;
      auto& l = e->as<Load>();
      bool same = l.indices.size() == where.size();
      for (size_t k = 0; same && k < where.size(); ++k) same = equal(l.indices[k], where[k]);
      return same;
    };
    for (auto [self, other] : {std::pair{b.a, b.b}, std::pair{b.b, b.a}})
      if (kind && isTarget(self) && !reads(other, target.tensor)) {
        op = kind;
        v = other;
        break;
      }
  }
  StmtP s;
  if (divide) s = makeStore(target.tensor, where, binary(BinOp::Div, load(target.tensor, where, target.dtype), v), loc, tag);
  else if (op) s = makeReduce(*op, target.tensor, where, v, loc, tag);
  else s = makeStore(target.tensor, where, v, loc, tag);
  // The loops are named after the statement's label (`Ly`, then `Ly.1`, ...), else its line.
  std::string base = statementLabel_.empty() ? "L" + std::to_string(loc.line) + ".0" : statementLabel_;
  for (size_t d = target.shape.size(); d-- > 0;)
    s = makeFor(d == 0 ? base : base + "." + std::to_string(d), vars[d], intConst(0), intConst(target.shape[d]), 1,
                LoopKind{}, s, {}, Provenance{loc});
  return withChecks({s});
}

}  // namespace teml::freeform
