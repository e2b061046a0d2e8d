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

  // The nest and steps so far, to go back to when a group of steps fails
  // half-way.
  struct Saved {
    ir::StmtP body;
    size_t steps;
  };
  Saved save() const { return {body, steps.size()}; }
  void restore(const Saved& s) {
    body = s.body;
    steps.resize(s.steps);
  }
};

}  // namespace teml::autoschedule
