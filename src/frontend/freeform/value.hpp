// What a free-form expression evaluates to while it is lowered: a number
// known at compile time, a run-time scalar (an IR expression), a tensor
// (a view of a tensor, or an element-wise expression over a shape), or one
// of the compile-time things a program names (strings, modules, functions,
// tuples).
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ir/expr.hpp"
#include "ir/tensor_decl.hpp"

namespace teml::freeform {

// One dimension of a tensor as a view sees it: fixed at an index, or a
// range [start, start + length) of the underlying dimension.
struct ViewDim {
  ir::ExprP index;  // fixed (null: a range)
  ir::ExprP start;
  int64_t length = 0;
};

struct TensorValue {
  std::vector<int64_t> shape;
  ir::DType dtype = ir::DType::F64;
  // A view of a named tensor (writable) when `tensor` is set.
  std::string tensor;
  std::vector<int64_t> fullShape;  // the named tensor's shape
  std::vector<ViewDim> dims;       // one per dimension of the named tensor
  // The element at view indices (one per entry of `shape`).
  std::function<ir::ExprP(const std::vector<ir::ExprP>&)> at;
  // teml.zeros / ones / empty: a fresh tensor with this fill (NaN: none).
  bool fresh = false;
  double fill = 0;
  ir::MemKind mem = ir::MemKind::Auto;  // teml.empty(shape, dtype, "gpu/shared")
  bool isView() const { return !tensor.empty(); }
  // A view of a whole tensor, not a part of one.
  bool isWhole() const;
  // The named tensor's indices for view indices.
  std::vector<ir::ExprP> underlying(const std::vector<ir::ExprP>& idx) const;
};
using TensorP = std::shared_ptr<const TensorValue>;

struct Node;

struct Value {
  enum class Kind { Number, Scalar, Tensor, String, Module, Function, Tuple, Slice, None };
  Kind kind = Kind::None;
  // Number: a Python number or bool, known at compile time (dtype Bool, I64 or F64).
  ir::DType numType = ir::DType::I64;
  int64_t i = 0;
  double f = 0;
  ir::ExprP expr;              // Scalar
  TensorP tensor;              // Tensor
  std::string text;            // String; Module ("teml", "teml.libop", "teml.exp", ...); Function name
  std::vector<Value> items;    // Tuple (and lists); Slice: {start, stop}, each a number or None
  // Function defined inside a function: its definition, and the call frame
  // (Builder's serial number) whose names it sees.
  const Node* def = nullptr;
  uint64_t closure = 0;

  static Value number(int64_t v, ir::DType t = ir::DType::I64);
  static Value real(double v);
  static Value scalar(ir::ExprP e);
  static Value ofTensor(TensorP t);
  static Value string(std::string s);
  static Value module(std::string s);
  static Value function(std::string s);
  static Value tuple(std::vector<Value> items);

  bool isNumber() const { return kind == Kind::Number; }
  bool isInteger() const { return kind == Kind::Number && ir::isIntegral(numType); }
  double asDouble() const { return ir::isFloat(numType) ? f : static_cast<double>(i); }
  // The element type (numbers: their own).
  ir::DType dtype() const;
};

const char* kindWord(Value::Kind k);
// A type's name in programs and NumPy: "float32", "int64", "bool", ...
std::string dtypeText(ir::DType t);

// `e` as type t: constants re-typed, anything else cast.
ir::ExprP convertTo(ir::DType t, const ir::ExprP& e);
// Python's truth value of `e`: itself when bool, else e != 0.
ir::ExprP truthOf(const ir::ExprP& e);

}  // namespace teml::freeform
