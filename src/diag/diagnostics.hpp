// Source locations and the three kinds of failure teml reports.
// UserError: the program is wrong (exit 1). UsageError: the command line or a
// file is wrong (exit 2). InternalError: a bug in teml (exit 3).
#pragma once
#include <stdexcept>
#include <string>

namespace teml {

struct SourceLoc {
  int line = 0;
  int col = 0;
  bool known() const { return line > 0; }
};

class UserError : public std::runtime_error {
 public:
  UserError(SourceLoc loc, const std::string& message)
      : std::runtime_error(message), loc_(loc) {}
  SourceLoc loc() const { return loc_; }

 private:
  SourceLoc loc_;
};

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class InternalError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "file:line:col: error: message" (or "file: error: message" without a location).
std::string formatDiagnostic(const std::string& file, SourceLoc loc, const std::string& message);

}  // namespace teml
