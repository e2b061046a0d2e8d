#include "autoschedule/auto_vectorize.hpp"

#include "autoschedule/loop_queries.hpp"
#include "autoschedule/step_text.hpp"

namespace teml::autoschedule {

using namespace ir;

void autoVectorize(AutoState& state) {
  for (auto& id : innermostLoops(state.body)) {
    const For* f = loopWithId(state.body, id);
    if (f->loopKind.concurrent()) continue;
    int64_t trips;
    if (constValue(sub(f->end, f->begin), &trips) && trips < state.target.lanes(DType::F32)) continue;
    state.tryStep(stepText("vectorize", {quoted(id)}), [&] { return state.schedule.vectorize(state.body, id); });
  }
}

}  // namespace teml::autoschedule
