#include "autoschedule/step.hpp"

namespace teml::autoschedule {

std::vector<std::string> temlLines(const std::vector<Step>& steps, const std::string& nest, const std::string& result) {
  std::vector<std::string> lines = {"# " + nest + ": " + std::to_string(steps.size()) + " steps"};
  std::string in = nest;
  for (size_t k = 0; k < steps.size(); ++k) {
    std::string out = !result.empty() && k + 1 == steps.size() ? result : nest + "_" + std::to_string(k + 1);
    lines.push_back(temlText(steps[k], in, out));
    in = out;
  }
  if (result.empty()) lines.push_back("codegen(" + in + ")");
  else if (steps.empty()) lines.push_back("# " + result + " is " + nest + " as it is");
  return lines;
}

}  // namespace teml::autoschedule
