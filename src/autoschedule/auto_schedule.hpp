// The automatic schedule of a nest its program leaves unscheduled
// (docs/auto-schedule.md; FreeTensor's Section 4.3): passes, one per file,
// each trying steps through the same legality checks as a user's.
#pragma once
#include <string>
#include <vector>

#include "schedule/schedule.hpp"
#include "target/target.hpp"

namespace teml::autoschedule {

struct AutoSchedule {
  ir::StmtP body;
  std::vector<std::string> steps;  // in the free-form schedule language, in order
};

AutoSchedule autoSchedule(schedule::Schedule& schedule, const ir::StmtP& body, const target::Target& target);

}  // namespace teml::autoschedule
