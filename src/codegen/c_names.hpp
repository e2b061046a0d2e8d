// C identifiers for program names: keywords and names of the C library that
// generated code might meet are mangled (a trailing underscore), and names
// that are not valid C are rewritten.
#pragma once
#include <set>
#include <string>

namespace teml::codegen {

class CNames {
 public:
  // A C name for `name`, distinct from every name handed out before.
  std::string claim(const std::string& name);
  // Makes a claimed name available again (a loop iterator leaving scope).
  void release(const std::string& cname) { used_.erase(cname); }

 private:
  std::set<std::string> used_;
};

bool isReservedInC(const std::string& name);

}  // namespace teml::codegen
