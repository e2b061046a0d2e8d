#include "autoschedule/auto_schedule.hpp"

#include "autoschedule/auto_fission_contractions.hpp"
#include "autoschedule/auto_fission_math.hpp"
#include "autoschedule/auto_fuse_intermediates.hpp"
#include "autoschedule/auto_gpu.hpp"
#include "autoschedule/auto_loop_order.hpp"
#include "autoschedule/auto_parallelize.hpp"
#include "autoschedule/auto_register_blocks.hpp"
#include "autoschedule/auto_row_blocks.hpp"
#include "autoschedule/auto_sums_in_registers.hpp"
#include "autoschedule/auto_vectorize.hpp"
#include "autoschedule/auto_window_blocks.hpp"

namespace teml::autoschedule {

AutoSchedule autoSchedule(schedule::Schedule& schedule, const ir::StmtP& body, const target::Target& target,
                          Tuner* tuner, const ir::Program* context) {
  AutoState state(schedule, body, target, context ? tuner : nullptr, context);
  // The passes decide on a Schedule that checks every step, even under
  // --no-check (which is for the user's steps, not for choices made here);
  // the front end's Schedule then takes the steps chosen.
  AutoState search = state.checks() ? state : state.fork(true);
  if (target.kind == target::Kind::Cuda) {
    autoGpu(search);
  } else {
    autoFuseIntermediates(search);
    autoFissionContractions(search);
    autoRegisterBlocks(search);
    autoFissionMath(search, MathCut::BeforeLoops);
    autoLoopOrder(search);
    autoFissionMath(search, MathCut::AfterLoops);
    autoWindowBlocks(search);
    autoRowBlocks(search);
    autoSumsInRegisters(search);
    autoParallelize(search);
    autoVectorize(search);
  }
  if (state.checks()) return {search.body, search.steps};  // the same Schedule took them
  state.replay(search.steps);
  return {state.body, state.steps};
}

}  // namespace teml::autoschedule
