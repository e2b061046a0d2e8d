#include "autoschedule/auto_state.hpp"

#include "autoschedule/loop_queries.hpp"

namespace teml::autoschedule {

bool AutoState::tryStep(Step step) {
  step.iterators.clear();
  for (auto& id : step.loops) {
    const ir::For* f = loopWithId(body, id);
    if (!f) return false;
    step.iterators.push_back(f->var);
  }
  try {
    auto applied = applyStep(schedule, body, step);
    body = applied.result;
    step.created = applied.created;
  } catch (const schedule::ScheduleError&) {
    return false;
  }
  steps.push_back(std::move(step));
  return true;
}

bool AutoState::replay(const std::vector<Step>& taken) {
  Saved before = save();
  for (auto& step : taken)
    if (!tryStep(step)) {
      restore(before);
      return false;
    }
  return true;
}

}  // namespace teml::autoschedule
