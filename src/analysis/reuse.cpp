#include "analysis/reuse.hpp"

#include <set>

#include "analysis/executions.hpp"
#include "ir/mutator.hpp"

namespace teml::analysis {

using namespace ir;

namespace {
// A load whose last subscript is read from data (SpMV's x[col[k]]): a
// scalar read of one element, which no vector takes along the row.
bool gathered(const Load& l) {
  bool data = false;
  if (!l.indices.empty())
    forEachExpr(l.indices.back(), [&](const ExprP& y) { data = data || y->kind == ExprKind::Load; });
  return data;
}
}  // namespace

double estimatedReadsPerElement(const Program& program, const std::string& tensor) {
  const TensorDecl* decl = program.find(tensor);
  if (!decl || decl->elementCount() == 0) return 0;
  auto loadsOf = [&](const Stmt& s) {
    const ExprP& value = s.kind == StmtKind::Store ? s.as<Store>().value : s.as<Reduce>().value;
    std::set<const Expr*> subscripts;  // loads that pick an element of another tensor
    forEachExpr(value, [&](const ExprP& x) {
      if (x->kind != ExprKind::Load) return;
      for (auto& i : x->as<Load>().indices)
        forEachExpr(i, [&](const ExprP& y) { subscripts.insert(y.get()); });
    });
    double loads = 0;
    forEachExpr(value, [&](const ExprP& x) {
      loads += x->kind == ExprKind::Load && x->as<Load>().tensor == tensor && !subscripts.count(x.get()) &&
               !gathered(x->as<Load>());
    });
    return loads;
  };
  return estimatedExecutions(program, loadsOf) / static_cast<double>(decl->elementCount());
}

}  // namespace teml::analysis
