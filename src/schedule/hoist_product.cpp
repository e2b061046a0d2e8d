// hoist_product: in the loop's statements, the factors of a product that do
// not depend on the loop's iterator are multiplied first (B * D * C becomes
// B * (D * C) for a loop over B's index alone), so that their product is
// computed once for all iterations: the C compiler hoists it out of the loop
// or shares it between the loop's unrolled copies (mttkrp's D[l][j] * C[k][j]
// for a block of rows). Instances keep their order; only the rounding of a
// floating-point product can differ.
#include "ir/mutator.hpp"
#include "schedule/nest_path.hpp"
#include "schedule/schedule_error.hpp"
#include "schedule/transforms.hpp"

namespace teml::schedule {

using namespace ir;

namespace {

class HoistProduct : public Mutator {
 public:
  explicit HoistProduct(std::string var) : var_(std::move(var)) {}
  int changed = 0;

 protected:
  ExprP mutateBinary(const ExprP& e) override {
    auto& b = e->as<Binary>();
    if (b.op != BinOp::Mul || isIntegral(b.dtype)) return Mutator::mutateBinary(e);
    std::vector<ExprP> factors;
    collect(e, factors);
    std::vector<ExprP> dependent, invariant;
    for (auto& f : factors) (usesVar(f, var_) ? dependent : invariant).push_back(f);
    if (dependent.empty() || invariant.size() < 2) return rebuild(factors);
    // Already grouped when the invariant factors are the trailing ones of
    // the left-to-right product, in one subtree: (B) * (D * C).
    ++changed;
    return mul(rebuild(dependent), rebuild(invariant));
  }

 private:
  // The factors of a product, left to right, each mutated.
  void collect(const ExprP& e, std::vector<ExprP>& out) {
    auto* b = e->kind == ExprKind::Binary ? static_cast<const Binary*>(e.get()) : nullptr;
    if (b && b->op == BinOp::Mul && !isIntegral(b->dtype)) {
      collect(b->a, out);
      collect(b->b, out);
    } else {
      out.push_back(mutate(e));
    }
  }
  static ExprP rebuild(const std::vector<ExprP>& factors) {
    ExprP p = factors[0];
    for (size_t k = 1; k < factors.size(); ++k) p = mul(p, factors[k]);
    return p;
  }
  std::string var_;
};

}  // namespace

StmtP hoistProduct(const StmtP& nest, int r) {
  auto chain = loopsToLevel(nest, r, "hoist_product");
  const For& f = *chain[r - 1];
  HoistProduct h(f.var);
  StmtP body = h.mutate(loopBody(f));
  if (!h.changed)
    throw ScheduleError("hoist_product: no product in loop '" + f.var + "' has two or more factors that do not depend on '" +
                        f.var + "'");
  return replaceLevel(chain, r, withBody(f, body));
}

}  // namespace teml::schedule
