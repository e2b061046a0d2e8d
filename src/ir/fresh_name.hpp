// Names that nothing else in a program has taken.
#pragma once
#include <set>
#include <string>

namespace teml::ir {

// A name based on `base` that is not in `taken` (`base`, `base2`, `base3`, ...), added to it.
std::string freshName(const std::string& base, std::set<std::string>& taken);

}  // namespace teml::ir
