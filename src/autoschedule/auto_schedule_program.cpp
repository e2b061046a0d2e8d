#include "autoschedule/auto_schedule_program.hpp"

namespace teml::autoschedule {

ProgramSchedule autoScheduleProgram(const ir::Program& program, const target::Target& target, Tuner* tuner,
                                    const std::string& analysisCacheDir) {
  ProgramSchedule out{program, {}};
  out.program.nests.clear();
  schedule::Schedule schedule(out.program, schedule::ScheduleOptions{true, analysisCacheDir, {}});
  for (auto& nest : program.nests) {
    auto chosen = autoSchedule(schedule, nest, target, tuner, &out.program);
    schedule.admit(chosen.body);
    out.program.nests.push_back(chosen.body);
    out.steps.push_back(chosen.steps);
  }
  return out;
}

}  // namespace teml::autoschedule
