#include "ir/fresh_name.hpp"

namespace teml::ir {

std::string freshName(const std::string& base, std::set<std::string>& taken) {
  std::string name = base;
  for (int k = 2; taken.count(name); ++k) name = base + std::to_string(k);
  taken.insert(name);
  return name;
}

}  // namespace teml::ir
