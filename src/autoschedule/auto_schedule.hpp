// The automatic schedule of a nest its program leaves unscheduled
// (docs/auto-schedule.md; FreeTensor's Section 4.3): passes, one per file,
// each trying steps through the same legality checks as a user's.
#pragma once
#include <vector>

#include "autoschedule/step.hpp"
#include "autoschedule/tuner.hpp"
#include "target/target.hpp"

namespace teml::autoschedule {

struct AutoSchedule {
  ir::StmtP body;
  std::vector<Step> steps;  // in order; they replay on the nest as it was
};

// `tuner` (may be null) measures candidates over `context`'s tensors where
// heuristics do not decide.
AutoSchedule autoSchedule(schedule::Schedule& schedule, const ir::StmtP& body, const target::Target& target,
                          Tuner* tuner = nullptr, const ir::Program* context = nullptr);

}  // namespace teml::autoschedule
