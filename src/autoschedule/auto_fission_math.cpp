#include "autoschedule/auto_fission_math.hpp"

#include <set>

#include "autoschedule/loop_queries.hpp"
#include "ir/mutator.hpp"

namespace teml::autoschedule {

using namespace ir;

namespace {

// A scalar read across the cut becomes one element per iteration: at most
// this many (a quarter MiB of floats), so the cut never makes a large tensor.
constexpr int64_t kMostIterations = 1 << 16;

// Calls math, or divides floats: a scalar division costs as much as a
// vector of sixteen (softmax's gradient divides by the row's sum twice per
// element, between the loops of its products).
bool callsMath(const StmtP& s) {
  bool found = false;
  forEachExprIn(s, [&](const ExprP& e) {
    if (e->kind == ExprKind::Binary && e->as<Binary>().op == BinOp::Div && !e->isInt()) found = true;
    if (e->kind != ExprKind::Unary) return;
    switch (e->as<Unary>().op) {
      case UnaryOp::Exp: case UnaryOp::Log: case UnaryOp::Sqrt: case UnaryOp::Tanh:
      case UnaryOp::Sigmoid: case UnaryOp::Sin: case UnaryOp::Cos: found = true; break;
      default: break;
    }
  });
  return found;
}

bool holdsLoop(const StmtP& s) {
  bool found = false;
  forEachStmt(s, [&](const StmtP& t) { found = found || t->kind == StmtKind::For; });
  return found;
}

// Where to cut j's body: after its leading statements without loops, when
// they call math and loops follow; or before its trailing statements
// without loops, when they call math and follow loops (0: nowhere).
int cutAroundMath(const For& j, int64_t lanes, MathCut cut) {
  int64_t trips = constantTrips(j);
  if (j.loopKind.concurrent() || j.step != 1 || trips < lanes || trips > kMostIterations) return 0;
  auto body = bodyItems(j);
  auto mathIn = [&](size_t from, size_t to) {
    bool math = false;
    for (size_t k = from; k < to; ++k) math = math || callsMath(body[k]);
    return math;
  };
  size_t lead = 0;
  while (lead < body.size() && !holdsLoop(body[lead])) ++lead;
  if (lead == body.size()) return 0;
  if (cut == MathCut::BeforeLoops) return lead > 0 && mathIn(0, lead) ? static_cast<int>(lead) : 0;
  size_t trail = body.size();
  while (trail > 0 && !holdsLoop(body[trail - 1])) --trail;
  return trail < body.size() && mathIn(trail, body.size()) ? static_cast<int>(trail) : 0;
}

}  // namespace

void autoFissionMath(AutoState& state, MathCut cut) {
  int64_t lanes = state.target.lanes(DType::F32);
  std::set<std::string> tried;
  for (bool changed = true; changed;) {
    changed = false;
    for (auto& id : state.loops([&](const For& f) { return !tried.count(f.id) && cutAroundMath(f, lanes, cut) > 0; })) {
      tried.insert(id);
      if (state.tryStep({"fission", {id}, {cutAroundMath(*loopWithId(state.body, id), lanes, cut)}})) {
        changed = true;
        break;  // ids and positions moved: look again
      }
    }
  }
}

}  // namespace teml::autoschedule
