// What the automatic schedule passes share: the nest so far, the Schedule
// whose primitives they try (each step legality-checked like a user's; a
// refused step is simply not taken), and the steps taken, as data that
// replays and prints in each front end's language (autoschedule/step.hpp).
#pragma once
#include <string>
#include <vector>

#include "autoschedule/step.hpp"
#include "autoschedule/tuner.hpp"
#include "target/target.hpp"

namespace teml::autoschedule {

struct AutoState {
  schedule::Schedule& schedule;
  ir::StmtP body;
  const target::Target& target;
  Tuner* tuner = nullptr;  // null: choices by heuristics alone
  const ir::Program* context = nullptr;  // the tensors a measured candidate runs over
  std::vector<Step> steps = {};

  // Takes `step` when the Schedule accepts it (filling in its iterators and
  // the loops it made); false, with nothing changed, when it is refused.
  bool tryStep(Step step);
  // Takes `steps` (made on the same nest) one after another; false, with
  // nothing changed, when one is refused.
  bool replay(const std::vector<Step>& steps);
  // The ids of the loops the last step made.
  const std::vector<std::string>& made() const { return steps.back().created; }

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
