#include "codegen/c_text.hpp"

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

std::string paramDecl(const TensorDecl& t, const std::string& cname) {
  std::string type = cType(t.dtype);
  if (t.shape.size() <= 1) return type + " *restrict " + cname;
  return type + " (*restrict " + cname + ")" + shapeSuffix(t);
}

std::string castTo(const TensorDecl& t) {
  std::string type = cType(t.dtype);
  if (t.shape.size() <= 1) return "(" + type + " *)";
  return "(" + type + " (*)" + shapeSuffix(t) + ")";
}

}  // namespace teml::codegen
