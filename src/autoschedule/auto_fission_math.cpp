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

bool callsMath(const StmtP& s) {
  bool found = false;
  forEachExprIn(s, [&](const ExprP& e) {
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
// they call math and loops follow (0: nowhere).
int cutAfterMath(const For& j, int64_t lanes) {
  int64_t trips = constantTrips(j);
  if (j.loopKind.concurrent() || j.step != 1 || trips < lanes || trips > kMostIterations) return 0;
  auto body = bodyItems(j);
  size_t q = 0;
  while (q < body.size() && !holdsLoop(body[q])) ++q;
  if (q == 0 || q == body.size()) return 0;
  bool math = false;
  for (size_t k = 0; k < q; ++k) math = math || callsMath(body[k]);
  return math ? static_cast<int>(q) : 0;
}

}  // namespace

void autoFissionMath(AutoState& state) {
  int64_t lanes = state.target.lanes(DType::F32);
  std::set<std::string> tried;
  for (bool changed = true; changed;) {
    changed = false;
    for (auto& id : state.loops([&](const For& f) { return !tried.count(f.id) && cutAfterMath(f, lanes) > 0; })) {
      tried.insert(id);
      if (state.tryStep({"fission", {id}, {cutAfterMath(*loopWithId(state.body, id), lanes)}})) {
        changed = true;
        break;  // ids and positions moved: look again
      }
    }
  }
}

}  // namespace teml::autoschedule
