// The built-in functions of free-form programs: Python's (abs, min, max,
// float, int, len, slice) and teml's (intrinsics, zeros/ones/empty/full,
// result_type); numbers fold, the rest become element-wise expressions.
#include <cmath>

#include "frontend/freeform/builder.hpp"

namespace teml::freeform {

using namespace ir;

namespace {

[[noreturn]] void fail(SourceLoc loc, const std::string& m) { throw UserError(loc, m); }

const std::map<std::string, UnaryOp>& intrinsics() {
  static const std::map<std::string, UnaryOp> m = {
      {"exp", UnaryOp::Exp},     {"log", UnaryOp::Log}, {"sqrt", UnaryOp::Sqrt}, {"tanh", UnaryOp::Tanh},
      {"sigmoid", UnaryOp::Sigmoid}, {"sin", UnaryOp::Sin}, {"cos", UnaryOp::Cos}, {"floor", UnaryOp::Floor},
      {"ceil", UnaryOp::Ceil}};
  return m;
}

}  // namespace

Value Builder::builtin(const std::string& name, const Node& e, const std::vector<Value>& args) {
  SourceLoc loc = e.loc;
  auto keyword = [&](const std::string& k) -> const Value* {
    size_t first = args.size() - e.keywords.size();
    for (size_t j = 0; j < e.keywords.size(); ++j)
      if (e.keywords[j] == k) return &args[first + j];
    return nullptr;
  };
  size_t positional = args.size() - e.keywords.size();
  auto noKeywords = [&]() {
    if (!e.keywords.empty()) fail(loc, name + "() takes no keyword argument '" + e.keywords[0] + "'");
  };
  if (name == "range") fail(loc, "range(...) is allowed only as the iterable of a for loop");
  if (name == "len") {
    noKeywords();
    if (args.size() != 1) fail(loc, "len takes one argument");
    if (args[0].kind == Value::Kind::Tuple) return Value::number(static_cast<int64_t>(args[0].items.size()));
    if (args[0].kind == Value::Kind::Tensor && !args[0].tensor->shape.empty()) return Value::number(args[0].tensor->shape[0]);
    fail(loc, std::string("len of ") + kindWord(args[0].kind));
  }
  if (name == "slice") {
    noKeywords();
    if (args.empty() || args.size() > 2) fail(loc, "slice takes a stop, or a start and a stop");
    Value sl;
    sl.kind = Value::Kind::Slice;
    sl.items = args.size() == 1 ? std::vector<Value>{Value{}, args[0]} : std::vector<Value>{args[0], args[1]};
    return sl;
  }
  if (name == "result_type") {  // NumPy's: the type of an operation on these operands
    noKeywords();
    if (args.empty()) fail(loc, "result_type takes one or more values");
    Value acc = args[0];
    for (size_t k = 1; k < args.size(); ++k) {
      DType t = resultType(acc, args[k]);
      acc = Value::scalar(convertTo(t, intConst(0)));  // stands for a value of that type
    }
    return Value::string(dtypeText(acc.dtype()));
  }
  if (name == "abs") {
    noKeywords();
    if (args.size() != 1) fail(loc, "abs takes one argument");
    if (args[0].isNumber()) return isFloat(args[0].numType) ? Value::real(std::fabs(args[0].f)) : Value::number(std::llabs(args[0].i));
    return elementwise({args[0]}, args[0].dtype(), loc, [](const std::vector<ExprP>& x) { return unary(UnaryOp::Abs, x[0]); });
  }
  if (name == "min" || name == "max") {
    noKeywords();
    if (args.size() < 2) fail(loc, name + " takes two or more arguments");
    Value acc = args[0];
    for (size_t k = 1; k < args.size(); ++k) {
      const Value& b = args[k];
      if (acc.isNumber() && b.isNumber()) {
        bool takeB = name == "min" ? b.asDouble() < acc.asDouble() : b.asDouble() > acc.asDouble();
        if (takeB) acc = b;
        continue;
      }
      DType t = resultType(acc, b);
      BinOp op = name == "min" ? BinOp::Min : BinOp::Max;
      acc = elementwise({acc, b}, t, loc, [op, t](const std::vector<ExprP>& x) {
        return binary(op, convertTo(t, x[0]), convertTo(t, x[1]));
      });
    }
    return acc;
  }
  if (name == "float" || name == "int") {
    noKeywords();
    if (args.size() != 1) fail(loc, name + " takes one argument");
    const Value& a = args[0];
    if (a.kind == Value::Kind::String && name == "float") {
      if (a.text == "inf" || a.text == "+inf") return Value::real(INFINITY);
      if (a.text == "-inf") return Value::real(-INFINITY);
      if (a.text == "nan") return Value::real(NAN);
      fail(loc, "float(\"" + a.text + "\"): only \"inf\", \"-inf\" and \"nan\"");
    }
    if (a.isNumber()) return name == "float" ? Value::real(a.asDouble()) : Value::number(static_cast<int64_t>(a.asDouble()));
    DType t = name == "float" ? DType::F64 : DType::I64;
    return elementwise({a}, t, loc, [t](const std::vector<ExprP>& x) { return convertTo(t, x[0]); });
  }
  auto in = intrinsics().find(name);
  if (in != intrinsics().end()) {
    noKeywords();
    if (args.size() != 1) fail(loc, "teml." + name + " takes one argument");
    UnaryOp op = in->second;
    if (args[0].isNumber()) return Value::real(applyUnary(op, args[0].asDouble()));
    DType t = isFloat(args[0].dtype()) ? args[0].dtype() : DType::F64;
    return elementwise({args[0]}, t, loc, [op, t](const std::vector<ExprP>& x) { return unary(op, convertTo(t, x[0])); });
  }
  if (name == "zeros" || name == "ones" || name == "empty" || name == "full") {
    // full(shape, value, dtype): NumPy's; the others take (shape, dtype).
    size_t valueArgs = name == "full" ? 1 : 0;
    if (positional < 1 + valueArgs || positional > 3 + valueArgs)
      fail(loc, "teml." + name + (valueArgs ? " takes a shape, a value, a dtype and a memory type"
                                            : " takes a shape, a dtype and a memory type"));
    double fillValue = name == "ones" ? 1 : 0;
    ExprP runtimeValue;  // full(shape, e) with e known only at run time
    if (valueArgs && args[1].isNumber()) fillValue = args[1].asDouble();
    else if (valueArgs) runtimeValue = toExpr(args[1], e.kids[2]->loc, "the value of teml.full"), fillValue = 1;
    const Value* dt = positional >= 2 + valueArgs ? &args[1 + valueArgs] : keyword("dtype");
    const Value* mtype = positional == 3 + valueArgs ? &args[2 + valueArgs] : keyword("mtype");
    for (auto& k : e.keywords)
      if (k != "dtype" && k != "mtype") fail(loc, "teml." + name + "() takes no keyword argument '" + k + "'");
    MemKind mem = MemKind::Auto;
    if (mtype) {
      auto m = mtype->kind == Value::Kind::String ? memKindNamed(mtype->text) : std::nullopt;
      if (!m) fail(loc, "the memory type is \"cpu\", \"gpu/global\", \"gpu/shared\" or \"gpu/local\"");
      mem = *m;
    }
    std::vector<int64_t> shape;
    std::vector<Value> dims = args[0].kind == Value::Kind::Tuple ? args[0].items : std::vector<Value>{args[0]};
    for (auto& d : dims) {
      if (!d.isInteger() || d.i < 0) fail(e.kids[1]->loc, "a shape is a tuple of non-negative integers known at compile time");
      shape.push_back(d.i);
    }
    DType dtype = DType::F64;
    if (dt) {
      if (dt->kind != Value::Kind::String) fail(loc, "the dtype is a string such as \"float32\"");
      static const std::map<std::string, DType> names = {{"float64", DType::F64}, {"float32", DType::F32}, {"int32", DType::I32},
                                                         {"int64", DType::I64},   {"bool", DType::Bool}};
      auto it = names.find(dt->text);
      if (it == names.end()) fail(loc, "unknown element type \"" + dt->text + "\"");
      dtype = it->second;
    }
    auto t = std::make_shared<TensorValue>();
    t->shape = shape;
    t->dtype = dtype;
    t->fresh = true;
    t->fill = name == "empty" ? NAN : fillValue;
    t->mem = mem;
    t->at = [dtype, fillValue, runtimeValue](const std::vector<ExprP>&) {
      return convertTo(dtype, runtimeValue ? runtimeValue : floatConst(fillValue));
    };
    return Value::ofTensor(t);
  }
  fail(loc, "unknown function 'teml." + name + "'");
}

}  // namespace teml::freeform
