// The automatic schedule of every nest of a program whose language has no
// schedule of its own (TeIL): each nest in turn, through one Schedule (so
// the legality checks see the nests before it), then admitted.
#pragma once
#include <string>
#include <vector>

#include "autoschedule/auto_schedule.hpp"

namespace teml::autoschedule {

struct ProgramSchedule {
  ir::Program program;
  std::vector<std::vector<Step>> steps;  // per nest, in order
};

ProgramSchedule autoScheduleProgram(const ir::Program& program, const target::Target& target, Tuner* tuner,
                                    const std::string& analysisCacheDir);

}  // namespace teml::autoschedule
