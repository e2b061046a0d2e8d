// The stages every entry point runs to differentiate a program, written
// once: the program as written (verified) -> its gradient program
// (autodiff, verified) -> the automatic schedule of every nest, forward and
// backward (when asked). `teml grad`, `teml bench --wrt` and the Python
// package's teml.grad call it; lowering for the target follows in each.
#pragma once
#include <string>
#include <vector>

#include "autodiff/gradient.hpp"
#include "autoschedule/step.hpp"
#include "lowering/pass_log.hpp"
#include "target/target.hpp"

namespace teml::driver {

struct ScheduledGradient {
  autodiff::GradientProgram gradient;                  // its program as scheduled
  std::vector<std::vector<autoschedule::Step>> steps;  // each nest's automatic steps (none: not scheduled)
  bool autoScheduled = false;
  double gradientSeconds = 0, scheduleSeconds = 0;
};

// Throws UserError (what cannot be differentiated), InternalError (IR a
// stage made ill-formed).
// `log` (may be null) gets the program after each gradient pass and after
// the automatic schedule.
ScheduledGradient differentiate(const ir::Program& asWritten, const autodiff::GradientRequest& request,
                                const target::Target& target, bool autoSchedule, const std::string& analysisCacheDir,
                                lowering::PassLog* log = nullptr);

}  // namespace teml::driver
