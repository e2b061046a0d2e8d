#include "autoschedule/auto_parallelize.hpp"

#include <thread>

#include "autoschedule/loop_queries.hpp"
#include "autoschedule/step_text.hpp"

namespace teml::autoschedule {

using namespace ir;

void autoParallelize(AutoState& state) {
  int64_t threads = state.target.threads > 0 ? state.target.threads : std::thread::hardware_concurrency();
  for (auto& outer : outermostLoops(state.body)) {
    for (auto& id : perfectChain(state.body, outer)) {
      const For* f = loopWithId(state.body, id);
      int64_t trips;
      if (constValue(sub(f->end, f->begin), &trips) && f->step == 1 && trips < threads) continue;
      bool taken = state.tryStep(stepText("parallelize", {quoted(id)}), [&] {
        return state.schedule.parallelize(state.body, id, ThreadSchedule::Static);
      });
      if (taken) break;
    }
  }
}

}  // namespace teml::autoschedule
