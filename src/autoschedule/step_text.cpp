#include "autoschedule/step_text.hpp"

namespace teml::autoschedule {

std::string quoted(const std::string& s) { return "\"" + s + "\""; }

std::string stepText(const std::string& primitive, const std::vector<std::string>& args) {
  std::string text = "s." + primitive + "(";
  for (size_t k = 0; k < args.size(); ++k) text += (k ? ", " : "") + args[k];
  return text + ")";
}

}  // namespace teml::autoschedule
