// What the automatic schedule passes share: the nest so far, the Schedule
// whose primitives they try (each step legality-checked like a user's; a
// refused step is simply not taken), and the steps taken, written in the
// free-form schedule language so that a user can paste them.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "schedule/schedule.hpp"
#include "target/target.hpp"

namespace teml::autoschedule {

struct AutoState {
  schedule::Schedule& schedule;
  ir::StmtP body;
  const target::Target& target;
  std::vector<std::string> steps;  // s.parallelize("Li"), ...

  // Applies `step` (written `text`) when the Schedule accepts it; false,
  // with nothing changed, when it is refused.
  bool tryStep(const std::string& text, const std::function<schedule::Schedule::Applied()>& step);
};

}  // namespace teml::autoschedule
