#include "analysis/factored_sums.hpp"

#include <set>
#include <string>
#include <vector>

#include "ir/mutator.hpp"

namespace teml::analysis {

using namespace ir;

namespace {

bool isProduct(const ExprP& e) {
  return e->kind == ExprKind::Binary && e->as<Binary>().op == BinOp::Mul && !isIntegral(e->dtype);
}

void factorsOf(const ExprP& e, std::vector<ExprP>& out) {
  if (!isProduct(e)) return out.push_back(e);
  auto& b = e->as<Binary>();
  factorsOf(b.a, out);
  factorsOf(b.b, out);
}

ExprP productOf(const std::vector<ExprP>& factors) {
  ExprP p = factors[0];
  for (size_t k = 1; k < factors.size(); ++k) p = mul(p, factors[k]);
  return p;
}

}  // namespace

std::optional<FactoredSum> factoredSum(const Reduce& r, const For& f) {
  if (r.op != ReduceOp::Add || !isProduct(r.value)) return std::nullopt;
  std::set<std::string> moving = {f.var};
  forEachStmt(f.body, [&](const StmtP& s) {
    if (s->kind == StmtKind::For) moving.insert(s->as<For>().var);
  });
  auto movesWithLoop = [&](const ExprP& e) {
    for (auto& v : moving)
      if (usesVar(e, v)) return true;
    return false;
  };
  for (auto& i : r.indices)
    if (movesWithLoop(i)) return std::nullopt;
  std::set<std::string> written = tensorsWritten(f.body);
  auto shared = [&](const ExprP& factor) {
    if (movesWithLoop(factor)) return false;
    bool readsWritten = false;
    forEachExpr(factor, [&](const ExprP& x) {
      readsWritten = readsWritten || (x->kind == ExprKind::Load && written.count(x->as<Load>().tensor));
    });
    return !readsWritten;
  };
  std::vector<ExprP> factors, same, varying;
  factorsOf(r.value, factors);
  for (auto& x : factors) (shared(x) ? same : varying).push_back(x);
  if (same.empty() || varying.empty()) return std::nullopt;
  return FactoredSum{productOf(same), productOf(varying)};
}

}  // namespace teml::analysis
