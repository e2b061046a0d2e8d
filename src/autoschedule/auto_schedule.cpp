#include "autoschedule/auto_schedule.hpp"

#include "autoschedule/auto_parallelize.hpp"
#include "autoschedule/auto_vectorize.hpp"

namespace teml::autoschedule {

AutoSchedule autoSchedule(schedule::Schedule& schedule, const ir::StmtP& body, const target::Target& target) {
  AutoState state{schedule, body, target, {}};
  autoParallelize(state);
  autoVectorize(state);
  return {state.body, state.steps};
}

}  // namespace teml::autoschedule
