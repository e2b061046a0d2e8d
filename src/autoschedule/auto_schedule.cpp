#include "autoschedule/auto_schedule.hpp"

#include "autoschedule/auto_parallelize.hpp"
#include "autoschedule/auto_register_blocks.hpp"
#include "autoschedule/auto_vectorize.hpp"

namespace teml::autoschedule {

AutoSchedule autoSchedule(schedule::Schedule& schedule, const ir::StmtP& body, const target::Target& target,
                          Tuner* tuner, const ir::Program* context) {
  AutoState state(schedule, body, target, context ? tuner : nullptr, context);
  autoRegisterBlocks(state);
  autoParallelize(state);
  autoVectorize(state);
  return {state.body, state.steps};
}

}  // namespace teml::autoschedule
