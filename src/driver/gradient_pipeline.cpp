#include "driver/gradient_pipeline.hpp"

#include "autoschedule/auto_schedule_program.hpp"
#include "diag/diagnostics.hpp"
#include "diag/timing.hpp"
#include "ir/verify.hpp"

namespace teml::driver {

ScheduledGradient differentiate(const ir::Program& asWritten, const autodiff::GradientRequest& request,
                                const target::Target& target, bool autoSchedule, const std::string& analysisCacheDir,
                                lowering::PassLog* log) {
  if (std::string broken = ir::verify(asWritten); !broken.empty())
    throw InternalError("the front end produced ill-formed IR: " + broken);
  ScheduledGradient out;
  auto t = Clock::now();
  autodiff::PassObserver observe;
  if (log)
    observe = [log](const std::string& pass, const ir::Program& before, const ir::Program& after, double seconds) {
      log->record("gradient." + pass, before, after, seconds);
    };
  out.gradient = autodiff::gradient(asWritten, request, observe);
  if (std::string broken = ir::verify(out.gradient.program); !broken.empty())
    throw InternalError("the gradient is ill-formed IR: " + broken);
  out.gradientSeconds = secondsSince(t);
  if (!autoSchedule) return out;
  // The forward and backward nests are scheduled like any program's, by
  // the heuristics alone: the nests read indices that random inputs cannot
  // stand in for.
  t = Clock::now();
  const ir::Program before = out.gradient.program;
  auto chosen = autoschedule::autoScheduleProgram(out.gradient.program, target, nullptr, analysisCacheDir);
  out.gradient.program = chosen.program;
  out.steps = chosen.steps;
  out.autoScheduled = true;
  out.scheduleSeconds = secondsSince(t);
  if (log) log->record("auto_schedule", before, out.gradient.program, out.scheduleSeconds);
  return out;
}

}  // namespace teml::driver
