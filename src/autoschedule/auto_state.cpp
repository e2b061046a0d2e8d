#include "autoschedule/auto_state.hpp"

namespace teml::autoschedule {

bool AutoState::tryStep(const std::string& text, const std::function<schedule::Schedule::Applied()>& step) {
  try {
    body = step().result;
  } catch (const schedule::ScheduleError&) {
    return false;
  }
  steps.push_back(text);
  return true;
}

}  // namespace teml::autoschedule
