#include "frontend/freeform/value.hpp"

namespace teml::freeform {

using namespace ir;

bool TensorValue::isWhole() const {
  if (!isView() || shape != fullShape) return false;
  for (size_t d = 0; d < dims.size(); ++d) {
    int64_t start = -1;
    if (dims[d].index || !constValue(dims[d].start, &start) || start != 0 || dims[d].length != fullShape[d])
      return false;
  }
  return true;
}

std::vector<ExprP> TensorValue::underlying(const std::vector<ExprP>& idx) const {
  std::vector<ExprP> out;
  size_t k = 0;
  for (auto& d : dims) out.push_back(d.index ? d.index : add(d.start, idx.at(k++)));
  return out;
}

Value Value::number(int64_t v, DType t) {
  Value x;
  x.kind = Kind::Number;
  x.numType = t;
  x.i = v;
  x.f = static_cast<double>(v);
  return x;
}
Value Value::real(double v) {
  Value x;
  x.kind = Kind::Number;
  x.numType = DType::F64;
  x.f = v;
  return x;
}
Value Value::scalar(ExprP e) {
  Value x;
  x.kind = Kind::Scalar;
  x.expr = std::move(e);
  return x;
}
Value Value::ofTensor(TensorP t) {
  Value x;
  x.kind = Kind::Tensor;
  x.tensor = std::move(t);
  return x;
}
Value Value::string(std::string s) {
  Value x;
  x.kind = Kind::String;
  x.text = std::move(s);
  return x;
}
Value Value::module(std::string s) {
  Value x;
  x.kind = Kind::Module;
  x.text = std::move(s);
  return x;
}
Value Value::function(std::string s) {
  Value x;
  x.kind = Kind::Function;
  x.text = std::move(s);
  return x;
}
Value Value::tuple(std::vector<Value> items) {
  Value x;
  x.kind = Kind::Tuple;
  x.items = std::move(items);
  return x;
}

DType Value::dtype() const {
  switch (kind) {
    case Kind::Number: return numType;
    case Kind::Scalar: return expr->dtype;
    case Kind::Tensor: return tensor->dtype;
    default: return DType::F64;
  }
}

std::string dtypeText(DType t) {
  switch (t) {
    case DType::Bool: return "bool";
    case DType::I32: return "int32";
    case DType::I64: return "int64";
    case DType::F32: return "float32";
    case DType::F64: return "float64";
  }
  return "float64";
}

const char* kindWord(Value::Kind k) {
  switch (k) {
    case Value::Kind::Number: return "a number";
    case Value::Kind::Scalar: return "a run-time scalar";
    case Value::Kind::Tensor: return "a tensor";
    case Value::Kind::String: return "a string";
    case Value::Kind::Module: return "a module or built-in function";
    case Value::Kind::Function: return "a function";
    case Value::Kind::Tuple: return "a tuple";
    case Value::Kind::Slice: return "a slice";
    case Value::Kind::None: return "None";
  }
  return "a value";
}

}  // namespace teml::freeform
