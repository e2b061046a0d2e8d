// Source locations and the three kinds of failure teml reports.
// UserError: the program is wrong (exit 1). UsageError: the command line or a
// file is wrong (exit 2). InternalError: a bug in teml (exit 3).
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

namespace teml {

struct SourceLoc {
  int line = 0;
  int col = 0;
  bool known() const { return line > 0; }
  bool operator==(const SourceLoc&) const = default;
};

// A second place that explains an error, e.g. the '(' an expected ')' matches.
struct DiagnosticNote {
  SourceLoc loc;
  std::string message;
};

class UserError : public std::runtime_error {
 public:
  UserError(SourceLoc loc, const std::string& message)
      : std::runtime_error(message), loc_(loc) {}
  UserError(SourceLoc loc, const std::string& message, std::vector<DiagnosticNote> notes)
      : std::runtime_error(message), loc_(loc), notes_(std::move(notes)) {}
  SourceLoc loc() const { return loc_; }
  const std::vector<DiagnosticNote>& notes() const { return notes_; }

 private:
  SourceLoc loc_;
  std::vector<DiagnosticNote> notes_;
};

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// This machine cannot run the program (exit 4): no CUDA driver or device,
// no CUDA compiler. The message says which and how to get it.
class UnavailableError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class InternalError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "file:line:col: error: message" (or "file: error: message" without a location).
std::string formatDiagnostic(const std::string& file, SourceLoc loc, const std::string& message);

// The error's line followed by a "file:line:col: note: ..." line per note.
std::string formatDiagnostic(const std::string& file, const UserError& error);

}  // namespace teml
