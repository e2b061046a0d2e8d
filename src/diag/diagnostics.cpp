#include "diag/diagnostics.hpp"

namespace teml {

std::string formatDiagnostic(const std::string& file, SourceLoc loc, const std::string& message) {
  std::string out = file;
  if (loc.known()) out += ":" + std::to_string(loc.line) + ":" + std::to_string(loc.col);
  return out + ": error: " + message;
}

}  // namespace teml
