#include "codegen/c_names.hpp"

#include <cctype>

namespace teml::codegen {

bool isReservedInC(const std::string& name) {
  static const std::set<std::string> reserved = {
      // C keywords
      "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
      "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
      "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch", "typedef",
      "union", "unsigned", "void", "volatile", "while", "_Bool", "_Complex", "_Imaginary",
      "_Alignas", "_Alignof", "_Atomic", "_Generic", "_Noreturn", "_Static_assert",
      "_Thread_local", "bool", "true", "false", "asm", "typeof",
      // names from the headers generated code includes, or that the linker knows
      "main", "abs", "exp", "log", "pow", "sqrt", "sin", "cos", "tan", "fabs", "fmax", "fmin",
      "floor", "ceil", "round", "exit", "free", "malloc", "calloc", "realloc", "printf", "memcpy",
      "memset", "errno", "NULL", "EOF", "stdin", "stdout", "stderr", "y0", "y1", "yn", "j0", "j1",
      "jn", "gamma", "signgam", "erf", "exp2", "log2", "div", "ldiv", "time", "clock", "index",
      "rand", "int64_t", "int32_t", "size_t", "omp_get_num_threads", "omp_set_num_threads",
      "M_PI", "INFINITY", "NAN", "HUGE_VAL"};
  if (reserved.count(name)) return true;
  return name.rfind("teml_", 0) == 0 || name.rfind("__", 0) == 0;
}

std::string CNames::claim(const std::string& name) {
  std::string s;
  for (char c : name) s += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) s = "v_" + s;
  if (isReservedInC(s)) s += "_";
  std::string candidate = s;
  for (int k = 2; used_.count(candidate); ++k) candidate = s + "_" + std::to_string(k);
  used_.insert(candidate);
  return candidate;
}

}  // namespace teml::codegen
