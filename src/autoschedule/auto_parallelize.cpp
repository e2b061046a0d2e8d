#include "autoschedule/auto_parallelize.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "analysis/concurrency.hpp"
#include "analysis/legality.hpp"
#include "autoschedule/loop_queries.hpp"
#include "ir/functor.hpp"
#include "ir/mutator.hpp"
#include "lowering/parallel_reductions.hpp"

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
    loads(s->as<For>().begin);
    loads(s->as<For>().end);
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

// On threads, the loop's iterations would touch no element in common (not
// even by reductions, which would need a private copy or atomic updates).
bool conflictFree(const StmtP& nest, const For& f) {
  auto report = analysis::analyzeConcurrentLoop(f, false);
  bool strategy = !report.ok;
  for (auto& [r, s] : report.reduces) strategy = strategy || s != analysis::ReduceStrategy::Plain;
  return !strategy || analysis::loopIsIndependent(nest, f.id);
}

// An atomic update costs about six plain ones (an int64 scatter-add over
// 2M edges x 16 features, AMD EPYC, AVX2: 115 ms with atomic updates on one
// thread, 105 ms on two, 18 ms plain): a loop whose updates stay atomic runs
// slower on fewer threads than this than on one.
constexpr int64_t kAtomicBreakEvenThreads = 8;

// The tensors the nest defines, and those of the program it names, by name.
std::map<std::string, TensorDecl> tensorsOf(const AutoState& state) {
  std::map<std::string, TensorDecl> out;
  forEachStmt(state.body, [&](const StmtP& s) {
    if (s->kind == StmtKind::VarDef) out.emplace(s->as<VarDef>().decl.name, s->as<VarDef>().decl);
    if (s->kind == StmtKind::Reduce)
      if (const TensorDecl* t = state.tensor(s->as<Reduce>().tensor)) out.emplace(t->name, *t);
  });
  return out;
}

// On threads, at least half of the loop's writes to tensors outside it
// would be reductions that stay atomic updates: iterations may meet on
// their elements (isl cannot tell them apart) and no private copy per
// thread would do (lowering/parallel_reductions: a scatter into a tensor
// over 16 MiB).
bool mostlyAtomic(const StmtP& nest, const For& f, const std::map<std::string, TensorDecl>& tensors) {
  std::set<std::string> inside;
  forEachStmt(f.body, [&](const StmtP& s) {
    if (s->kind == StmtKind::VarDef) inside.insert(s->as<VarDef>().decl.name);
  });
  std::vector<const Reduce*> reduces;
  int64_t writes = 0;
  forEachStmt(f.body, [&](const StmtP& s) {
    if (s->kind == StmtKind::Store && !inside.count(s->as<Store>().tensor)) ++writes;
    if (s->kind == StmtKind::Reduce && !inside.count(s->as<Reduce>().tensor)) ++writes, reduces.push_back(&s->as<Reduce>());
  });
  // Cheap tests first: the dependence analyses below run isl.
  if (2 * static_cast<int64_t>(reduces.size()) < writes) return false;
  auto report = analysis::analyzeConcurrentLoop(f, false);
  if (!report.ok) return false;
  int64_t atomicWrites = 0;
  for (auto& [r, strategy] : report.reduces) {
    auto t = tensors.find(r->tensor);
    bool counted = std::find(reduces.begin(), reduces.end(), r) != reduces.end();
    atomicWrites += counted && strategy == analysis::ReduceStrategy::Atomic && t != tensors.end() &&
                    !lowering::privateArrayBox(f, *r, t->second);
  }
  return 2 * atomicWrites >= writes && atomicWrites > 0 && !analysis::loopIsIndependent(nest, f.id);
}

// A nest that writes nothing (the checks the front end puts before a
// nest) is not worth a parallel region.
bool writesNothing(const For& f) {
  bool writes = false;
  forEachStmt(f.body, [&](const StmtP& s) { writes = writes || s->kind == StmtKind::Store || s->kind == StmtKind::Reduce; });
  return !writes;
}

// Statements a nest runs, counted while every loop in it has a constant trip
// count; `known` false when data or an enclosing iterator decide one.
class Instances : public StmtFunctor<double()> {
 public:
  bool known = true;
  double count(const StmtP& s) { return dispatch(s); }

 protected:
  double visitFor(const For& f) override {
    int64_t trips = 0;
    if (!constValue(sub(f.end, f.begin), &trips) || f.step == 0) {
      known = false;
      return 0;
    }
    int64_t step = f.step > 0 ? f.step : -f.step;
    trips = f.step > 0 ? trips : -trips;
    return trips <= 0 ? 0 : static_cast<double>((trips + step - 1) / step) * count(f.body);
  }
  double visitSeq(const Seq& q) override {
    double n = 0;
    for (auto& k : q.stmts) n += count(k);
    return n;
  }
  double visitIf(const If& i) override { return count(i.then) + (i.otherwise ? count(i.otherwise) : 0); }
  double visitVarDef(const VarDef& v) override { return count(v.body); }
  double visitAssert(const Assert& a) override { return count(a.body); }
  double visitStore(const Store&) override { return 1; }
  double visitReduce(const Reduce&) override { return 1; }
  double visitLibCall(const LibCall&) override { return 0; }
  double visitBarrier(const Barrier&) override { return 0; }
  double visitExchange(const Exchange&) override { return 0; }
};

// Statements the nest runs; -1 when not known.
double instances(const StmtP& s) {
  Instances counter;
  double total = counter.count(s);
  return counter.known ? total : -1;
}

// Below this many statements a nest runs on one thread: starting threads and
// waiting for them costs microseconds on a quiet machine and scheduler ticks
// (milliseconds) on a busy one, more than so little work saves. The test
// suite sets TEML_THREADS_AT_ANY_SIZE=1 so that its small programs still
// run their parallel code on threads, where a lost update shows.
double worthThreads() {
  const char* any = std::getenv("TEML_THREADS_AT_ANY_SIZE");
  return any && std::string(any) == "1" ? 0 : 1 << 14;
}

// A parallel loop under serial ones (a maximum's gradient walks each row's
// positions backwards: for k serial, for row parallel) starts its threads
// once per iteration of those. Where each start would run little work, the
// loop moves outside them, if that order is legal, and starts them once:
// 256 regions of 256 rows each took a quarter of attention's gradient on
// one thread (1.23 -> 0.84-0.96 ms in C), and two thirds on two threads of
// a busy machine (1.70-1.86 -> 0.59-0.62 ms).
constexpr double kLeastWorkOfARegion = 1 << 14;

bool movedOutward(AutoState& state, const std::vector<std::string>& chain, size_t k) {
  double work = instances(loopWithId(state.body, chain[k])->self());
  if (work < 0 || work >= kLeastWorkOfARegion) return false;
  std::vector<std::string> order = {chain[k]};
  order.insert(order.end(), chain.begin(), chain.begin() + static_cast<long>(k));
  return state.replay({Step{"reorder", order}, Step{"parallelize", {chain[k]}}});
}

}  // namespace

void autoParallelize(AutoState& state) {
  int64_t threads = state.target.threads > 0 ? state.target.threads : std::thread::hardware_concurrency();
  const auto tensors = tensorsOf(state);
  for (auto& outer : outermostLoops(state.body)) {
    // A nest the user's steps put on threads already keeps them.
    bool threaded = false;
    const For* o = loopWithId(state.body, outer);
    forEachStmt(o->body, [&](const StmtP& s) {
      threaded = threaded || (s->kind == StmtKind::For && s->as<For>().loopKind.threads());
    });
    if (threaded || o->loopKind.threads() || writesNothing(*o)) continue;
    double work = instances(o->self());
    // Under several MPI ranks nests keep their threads: the automatic
    // distribution of a serial loop holding a scoped tensor crashed (fuzz
    // seed 3368; issue 47's ground).
    if (work >= 0 && work < worthThreads() && state.target.ranks <= 1) continue;
    auto chain = perfectChain(state.body, outer);
    bool everyLoopAboveRefused = true;  // not passed over for its size
    for (size_t k = 0; k < chain.size(); ++k) {
      const std::string& id = chain[k];
      const For* f = loopWithId(state.body, id);
      int64_t trips = -1;
      bool known = constValue(sub(f->end, f->begin), &trips) && f->step == 1;
      // Fewer than 8 iterations a thread balance badly (8 heads on 2
      // threads): a loop inside with more takes it, unless its iterations
      // would share elements where this loop's do not (a gradient's
      // scatter-adds across tokens, not across heads).
      bool few = known && (trips < threads ||
                           (trips < 8 * threads && k + 1 < chain.size() &&
                            !(conflictFree(state.body, *f) &&
                              !conflictFree(state.body, *loopWithId(state.body, chain[k + 1])))));
      if (few) {
        everyLoopAboveRefused = false;
        continue;
      }
      // The nest stays serial rather than pay for atomic updates (a loop
      // inside would only start threads more often).
      if (threads < kAtomicBreakEvenThreads && mostlyAtomic(state.body, *f, tensors)) break;
      if (k > 0 && everyLoopAboveRefused && !irregular(*f) && movedOutward(state, chain, k)) break;
      bool taken = irregular(*f) ? parallelizeDynamically(state, id, known ? trips : 0, threads)
                                 : state.tryStep({"parallelize", {id}});
      if (taken) break;
    }
  }
}

}  // namespace teml::autoschedule
