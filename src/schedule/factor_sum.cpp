// factor_sum: sums over a loop whose terms share a factor (SDDMM's
// R[i][j] += S[i][j] * A[i][k] * B[k][j] over k) add up only the varying part
// and multiply by the shared factor once after the loop: one FMA per term
// instead of a multiply and an FMA. The loop is marked; the lowering stage
// does it for the sums it keeps in registers across the loop. Instances keep
// their order; only the rounding of floating-point sums can change.
#include "analysis/factored_sums.hpp"
#include "ir/mutator.hpp"
#include "schedule/nest_path.hpp"
#include "schedule/schedule_error.hpp"
#include "schedule/transforms.hpp"

namespace teml::schedule {

using namespace ir;

StmtP factorSum(const StmtP& nest, int r) {
  auto chain = loopsToLevel(nest, r, "factor_sum");
  const For& f = *chain[r - 1];
  bool any = false;
  forEachStmt(f.body, [&](const StmtP& s) {
    any = any || (s->kind == StmtKind::Reduce && analysis::factoredSum(s->as<Reduce>(), f));
  });
  if (!any)
    throw ScheduleError("factor_sum: no sum over loop '" + f.var +
                        "' has terms that share a factor (a `+=` of a product with factors that do not change while '" +
                        f.var + "' runs)");
  LoopKind kind = f.loopKind;
  kind.factorSums = true;
  return replaceLevel(chain, r, std::make_shared<For>(f.id, f.var, f.begin, f.end, f.step, kind, f.body, f.made));
}

}  // namespace teml::schedule
