#include "ir/index_patterns.hpp"

#include "ir/mutator.hpp"

namespace teml::ir {

bool variesWith(const std::vector<ExprP>& indices, const std::string& var) {
  return !indices.empty() && usesVar(indices.back(), var);
}

bool mergedPair(const std::vector<ExprP>& indices, int64_t lastExtent, ExprP* x) {
  if (indices.size() < 2) return false;
  const ExprP& a = indices[indices.size() - 2];
  const ExprP& b = indices.back();
  if (a->kind != ExprKind::Binary || b->kind != ExprKind::Binary) return false;
  auto& div = static_cast<const Binary&>(*a);
  auto& mod = static_cast<const Binary&>(*b);
  int64_t n1, n2;
  if (div.op != BinOp::FloorDiv || mod.op != BinOp::Mod || !constValue(div.b, &n1) || !constValue(mod.b, &n2) ||
      n1 != lastExtent || n2 != lastExtent || !equal(div.a, mod.a))
    return false;
  *x = div.a;
  return true;
}

}  // namespace teml::ir
