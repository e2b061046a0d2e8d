#include "analysis/flops.hpp"

#include "analysis/executions.hpp"
#include "ir/mutator.hpp"

namespace teml::analysis {

using namespace ir;

namespace {

int64_t opsIn(const ExprP& e) {
  int64_t n = 0;
  forEachExpr(e, [&](const ExprP& x) {
    if (x->kind == ExprKind::Binary && !x->isInt()) ++n;
  });
  return n;
}

double flopsOf(const Stmt& s) {
  if (s.kind == StmtKind::Store) return static_cast<double>(opsIn(s.as<Store>().value));
  return static_cast<double>(opsIn(s.as<Reduce>().value) + 1);  // the update itself
}

}  // namespace

double countFlops(const StmtP& nest) { return countExecutions(nest, flopsOf); }

double estimatedFlops(const Program& program) { return estimatedExecutions(program, flopsOf); }

double countFlops(const Program& program) {
  double total = 0;
  for (auto& n : program.nests) total += countFlops(n);
  return total;
}

}  // namespace teml::analysis
