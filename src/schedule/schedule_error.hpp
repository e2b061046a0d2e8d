// A transformation that cannot be applied, and why: the target does not fit
// the primitive, the result would change what the program computes, or the
// analysis could not decide within its budget. Front ends turn it into a
// diagnostic at the statement that asked for the transformation.
#pragma once
#include <stdexcept>

namespace teml::schedule {

enum class Refusal { NotApplicable, Illegal, TooComplex };

class ScheduleError : public std::runtime_error {
 public:
  explicit ScheduleError(const std::string& message, Refusal kind = Refusal::NotApplicable)
      : std::runtime_error(message), kind_(kind) {}
  Refusal kind() const { return kind_; }

 private:
  Refusal kind_;
};

}  // namespace teml::schedule
