// Pieces of C text shared by the emitters: literals and tensor declarators.
#pragma once
#include <string>

#include "ir/tensor_decl.hpp"

namespace teml::codegen {

// A C literal of v (INFINITY, NAN and friends where needed).
std::string floatLiteral(double v, bool single);
// The C type of a tensor's elements in memory: bool as unsigned char (0 or
// 1, one byte as NumPy's), which GCC vectorizes and _Bool it does not.
const char* elementType(ir::DType t);
// "[n2][n3]...": the array suffix of a tensor's C type after its first dimension.
std::string shapeSuffix(const ir::TensorDecl& t);
// The C declarator of a tensor parameter, e.g. "double (*restrict A)[64][64]".
std::string paramDecl(const ir::TensorDecl& t, const std::string& cname);
// A cast of an untyped buffer pointer to the tensor's C type.
std::string castTo(const ir::TensorDecl& t);

// The integer helpers the expressions of every generated file call
// (c_expr): min, max, Python's floor division and modulo, abs, each after
// `qualifier` ("static inline" in C; host and device functions in CUDA).
std::string integerHelpers(const std::string& qualifier);

// `text` as a C string literal.
std::string cString(const std::string& text);

}  // namespace teml::codegen
