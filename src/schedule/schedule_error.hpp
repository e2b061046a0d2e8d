// A transformation that cannot be applied. Front ends turn it into a
// diagnostic at the statement that asked for the transformation.
#pragma once
#include <stdexcept>

namespace teml::schedule {

class ScheduleError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace teml::schedule
