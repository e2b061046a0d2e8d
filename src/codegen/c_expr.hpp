// C expressions of the loop IR, shared by every C-family emitter (C with
// OpenMP today, CUDA C next): literals, operators with C's precedence and
// parentheses only where needed, teml's helpers for floor division,
// modulo, min and max, math.h calls in the operand's precision. How an
// iterator and a tensor element are written is the emitter's (`CExprNames`).
#pragma once
#include <functional>
#include <string>

#include "ir/expr.hpp"

namespace teml::codegen {

struct CExprNames {
  std::function<std::string(const std::string& var)> iterator;
  std::function<std::string(const std::string& tensor, const std::vector<ir::ExprP>& indices)> element;
  // In a loop the C compiler vectorizes: float min and max as bitwise
  // selects (teml_minf_lanes), which GCC's PRE cannot multiply through as it
  // does through a branch's arms (SoftRas's clamps). Scalar code keeps the
  // branch form, one minss.
  bool inVectorLanes = false;
};

// `e` as C. `parent`: the precedence of the operator around it (0: none),
// `right`: e is its right operand; `single`: float literals and math in
// single precision.
std::string cExpr(const ir::ExprP& e, const CExprNames& names, int parent = 0, bool right = false, bool single = false);

}  // namespace teml::codegen
