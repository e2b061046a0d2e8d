#include "codegen/c_text.hpp"

#include <cstdio>
#include <sstream>

namespace teml::codegen {

using namespace ir;

std::string floatLiteral(double v, bool single) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  std::string s = os.str();
  if (s == "inf") return single ? "INFINITY" : "HUGE_VAL";
  if (s == "-inf") return single ? "(-INFINITY)" : "(-HUGE_VAL)";
  if (s == "nan" || s == "-nan") return "NAN";
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return single ? s + "f" : s;
}

std::string shapeSuffix(const TensorDecl& t) {
  std::string s;
  for (size_t d = 1; d < t.shape.size(); ++d) s += "[" + std::to_string(t.shape[d]) + "]";
  return s;
}

const char* elementType(DType t) { return t == DType::Bool ? "unsigned char" : cType(t); }

std::string paramDecl(const TensorDecl& t, const std::string& cname) {
  std::string type = elementType(t.dtype);
  if (t.shape.size() <= 1) return type + " *restrict " + cname;
  return type + " (*restrict " + cname + ")" + shapeSuffix(t);
}

std::string castTo(const TensorDecl& t) {
  std::string type = elementType(t.dtype);
  if (t.shape.size() <= 1) return "(" + type + " *)";
  return "(" + type + " (*)" + shapeSuffix(t) + ")";
}

std::string cString(const std::string& text) {
  std::string out = "\"";
  for (unsigned char ch : text) {
    if (ch == '"' || ch == '\\') out += '\\';
    if (ch < 32 || ch >= 127) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\%03o", ch);
      out += buf;
    } else {
      out += static_cast<char>(ch);
    }
  }
  return out + "\"";
}

std::string integerHelpers(const std::string& qualifier) {
  const std::string q = qualifier + " long ";
  return q + "teml_min(long a, long b) { return a < b ? a : b; }\n" +
         q + "teml_max(long a, long b) { return a > b ? a : b; }\n" +
         q + "teml_floordiv(long a, long b) { long q = a / b; return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q; }\n" +
         q + "teml_mod(long a, long b) { return a - teml_floordiv(a, b) * b; }\n" +
         q + "teml_abs(long a) { return a < 0 ? -a : a; }\n";
}

}  // namespace teml::codegen
