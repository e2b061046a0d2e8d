#include "diag/diagnostics.hpp"

namespace teml {

namespace {
std::string located(const std::string& file, SourceLoc loc) {
  if (!loc.known()) return file;
  return file + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.col);
}
}  // namespace

std::string formatDiagnostic(const std::string& file, SourceLoc loc, const std::string& message) {
  return located(file, loc) + ": error: " + message;
}

std::string formatDiagnostic(const std::string& file, const UserError& error) {
  std::string out = formatDiagnostic(file, error.loc(), error.what());
  for (auto& n : error.notes()) out += "\n" + located(file, n.loc) + ": note: " + n.message;
  return out;
}

}  // namespace teml
