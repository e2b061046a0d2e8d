#include "autoschedule/auto_parallelize.hpp"

#include <thread>

#include "autoschedule/loop_queries.hpp"
#include "ir/mutator.hpp"

namespace teml::autoschedule {

using namespace ir;

namespace {

// Work per iteration that data decide: a loop inside whose bounds load from
// a tensor (range(ptr[i], ptr[i + 1]) over a graph's rows).
bool irregular(const For& f) {
  bool found = false;
  auto loads = [&](const ExprP& e) { forEachExpr(e, [&](const ExprP& x) { found = found || x->kind == ExprKind::Load; }); };
  forEachStmt(f.body, [&](const StmtP& s) {
    if (s->kind != StmtKind::For) return;
    loads(static_cast<const For&>(*s).begin);
    loads(static_cast<const For&>(*s).end);
  });
  return found;
}

// Irregular iterations are handed out to threads as they finish (a dynamic
// schedule), in blocks large enough that a hand-out costs little against a
// block's work and small enough for about 64 blocks per thread.
bool parallelizeDynamically(AutoState& state, const std::string& id, int64_t trips, int64_t threads) {
  int64_t block = 1;
  while (trips > 0 && block * 2 <= trips / (threads * 64)) block *= 2;
  if (block < 2) return state.tryStep({"parallelize", {id}, {}, "dynamic"});
  AutoState::Saved before = state.save();
  if (state.tryStep({"split", {id}, {block}}) && state.tryStep({"parallelize", {state.made().at(0)}, {}, "dynamic"}))
    return true;
  state.restore(before);
  return false;
}

}  // namespace

void autoParallelize(AutoState& state) {
  int64_t threads = state.target.threads > 0 ? state.target.threads : std::thread::hardware_concurrency();
  for (auto& outer : outermostLoops(state.body)) {
    // A nest the user's steps put on threads already keeps them.
    bool threaded = false;
    const For* o = loopWithId(state.body, outer);
    forEachStmt(o->body, [&](const StmtP& s) {
      threaded = threaded || (s->kind == StmtKind::For && static_cast<const For&>(*s).loopKind.threads());
    });
    if (threaded || o->loopKind.threads()) continue;
    auto chain = perfectChain(state.body, outer);
    for (size_t k = 0; k < chain.size(); ++k) {
      const std::string& id = chain[k];
      const For* f = loopWithId(state.body, id);
      int64_t trips = -1;
      bool known = constValue(sub(f->end, f->begin), &trips) && f->step == 1;
      // Fewer than 8 iterations a thread balance badly (8 heads on 2
      // threads): a loop inside with more takes it.
      if (known && (trips < threads || (trips < 8 * threads && k + 1 < chain.size()))) continue;
      bool taken = irregular(*f) ? parallelizeDynamically(state, id, known ? trips : 0, threads)
                                 : state.tryStep({"parallelize", {id}});
      if (taken) break;
    }
  }
}

}  // namespace teml::autoschedule
