#include "autoschedule/auto_vectorize.hpp"

#include <set>

#include "autoschedule/loop_queries.hpp"
#include "ir/mutator.hpp"

namespace teml::autoschedule {

using namespace ir;

void autoVectorize(AutoState& state) {
  // A nest with a vector loop has its vectors chosen already (by the user or
  // the register-block pass): none of its loops is vectorized again.
  std::set<std::string> enclosed;
  for (auto& outer : outermostLoops(state.body)) {
    const For* o = loopWithId(state.body, outer);
    bool vectorized = o->loopKind.lanes();
    forEachStmt(o->body, [&](const StmtP& s) {
      vectorized = vectorized || (s->kind == StmtKind::For && s->as<For>().loopKind.lanes());
    });
    if (vectorized) forEachStmt(o->self(), [&](const StmtP& t) { enclosed.insert(t->id); });
  }
  for (auto& id : innermostLoops(state.body)) {
    const For* f = loopWithId(state.body, id);
    if (f->loopKind.concurrent() || enclosed.count(id)) continue;
    int64_t trips;
    if (constValue(sub(f->end, f->begin), &trips) && trips < state.target.lanes(DType::F32)) continue;
    state.tryStep({"vectorize", {id}});
  }
}

}  // namespace teml::autoschedule
