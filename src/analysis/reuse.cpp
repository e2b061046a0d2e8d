#include "analysis/reuse.hpp"

#include "analysis/executions.hpp"
#include "ir/mutator.hpp"

namespace teml::analysis {

using namespace ir;

double estimatedReadsPerElement(const Program& program, const std::string& tensor) {
  const TensorDecl* decl = program.find(tensor);
  if (!decl || decl->elementCount() == 0) return 0;
  auto loadsOf = [&](const Stmt& s) {
    double loads = 0;
    auto count = [&](const ExprP& e) {
      forEachExpr(e, [&](const ExprP& x) { loads += x->kind == ExprKind::Load && x->as<Load>().tensor == tensor; });
    };
    const auto& indices = s.kind == StmtKind::Store ? s.as<Store>().indices : s.as<Reduce>().indices;
    for (auto& i : indices) count(i);
    count(s.kind == StmtKind::Store ? s.as<Store>().value : s.as<Reduce>().value);
    return loads;
  };
  return estimatedExecutions(program, loadsOf) / static_cast<double>(decl->elementCount());
}

}  // namespace teml::analysis
