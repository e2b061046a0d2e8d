#include "autoschedule/auto_vectorize.hpp"

#include <set>

#include "autoschedule/loop_queries.hpp"
#include "ir/mutator.hpp"
#include "ir/printer.hpp"

namespace teml::autoschedule {

using namespace ir;

namespace {

// The loads that take a different element for each iteration of f through
// an index another load gives (x[col[k]] in k): gathers, in lanes. One
// element read twice is one gather.
int gathersAlong(const For& f) {
  std::set<std::string> gathers;
  forEachExprIn(f.body, [&](const ExprP& e) {
    if (e->kind != ExprKind::Load) return;
    bool gathered = false;
    for (auto& i : e->as<Load>().indices)
      forEachExpr(i, [&](const ExprP& x) { gathered = gathered || (x->kind == ExprKind::Load && usesVar(x, f.var)); });
    if (gathered) gathers.insert(toString(e));
  });
  return static_cast<int>(gathers.size());
}

int floatOperationsIn(const For& f) {
  int n = 0;
  forEachExprIn(f.body, [&](const ExprP& e) {
    n += (e->kind == ExprKind::Unary || e->kind == ExprKind::Binary) && isFloat(e->dtype);
  });
  return n;
}

// A vector gather costs about what its lanes' scalar loads cost (AVX-512 on
// Zen 4: CSR SpMV 336 us in 8 lanes, 271 us scalar; SciPy 271), so lanes pay
// only where the arithmetic on what they gather is several operations.
constexpr int kOperationsPerGatherForLanes = 4;

bool gathersMoreThanItComputes(const For& f) {
  int gathers = gathersAlong(f);
  return gathers > 0 && floatOperationsIn(f) <= kOperationsPerGatherForLanes * gathers;
}

// A max= or min= reduction whose terms call vector math (log, tanh, sin,
// cos: glibc's libmvec in SIMD lanes, within 4 ulp of the scalar libm; exp
// and sigmoid, teml's own and the same in lanes, are kept with them). Its
// gradient finds the term that won by computing the terms again, in scalar
// code, and comparing them with the reduction's result
// exactly: a vector tanh one ulp away from the scalar one leaves no term
// equal and the gradient lost (fuzz seed 6465). Such a loop stays scalar.
bool extremeOfVectorMath(const For& f) {
  bool found = false;
  forEachStmt(f.body, [&](const StmtP& s) {
    if (s->kind != StmtKind::Reduce) return;
    auto& r = s->as<Reduce>();
    if (r.op != ReduceOp::Max && r.op != ReduceOp::Min) return;
    forEachExpr(r.value, [&](const ExprP& e) {
      if (e->kind != ExprKind::Unary) return;
      UnaryOp op = e->as<Unary>().op;
      found = found || op == UnaryOp::Exp || op == UnaryOp::Log || op == UnaryOp::Tanh || op == UnaryOp::Sigmoid ||
              op == UnaryOp::Sin || op == UnaryOp::Cos;
    });
  });
  return found;
}

}  // namespace

void autoVectorize(AutoState& state) {
  // A nest with a vector loop has its vectors chosen already (by the user or
  // the register-block pass): none of its loops is vectorized again. Lanes
  // around sums kept in registers leave the rest of their nest to this pass,
  // but not the loops inside them.
  std::set<std::string> enclosed, aroundSums(state.lanesAroundSums.begin(), state.lanesAroundSums.end());
  for (auto& outer : outermostLoops(state.body)) {
    const For* o = loopWithId(state.body, outer);
    bool vectorized = false;
    forEachStmt(o->self(), [&](const StmtP& s) {
      if (s->kind != StmtKind::For || !s->as<For>().loopKind.lanes()) return;
      if (aroundSums.count(s->id))
        forEachStmt(s, [&](const StmtP& t) { enclosed.insert(t->id); });
      else
        vectorized = true;
    });
    if (vectorized) forEachStmt(o->self(), [&](const StmtP& t) { enclosed.insert(t->id); });
  }
  for (auto& id : innermostLoops(state.body)) {
    const For* f = loopWithId(state.body, id);
    if (f->loopKind.concurrent() || enclosed.count(id)) continue;
    int64_t trips;
    if (constValue(sub(f->end, f->begin), &trips) && trips < state.target.lanes(DType::F32)) continue;
    if (gathersMoreThanItComputes(*f) || extremeOfVectorMath(*f)) continue;
    state.tryStep({"vectorize", {id}});
  }
}

}  // namespace teml::autoschedule
