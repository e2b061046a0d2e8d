#include "ir/affine.hpp"
#include "ir/mutator.hpp"
#include "schedule/nest_path.hpp"
#include "schedule/schedule_error.hpp"
#include "schedule/transforms.hpp"

namespace teml::schedule {

using namespace ir;

namespace {

// Integer sums written as one sum each: `k[8 * o + t]`, not `k[j + (t - (j - 8 * o))]`.
class CollectTerms : public Mutator {
  ExprP mutateBinary(const ExprP& e) override {
    auto op = e->as<Binary>().op;
    if (e->isInt() && (op == BinOp::Add || op == BinOp::Sub)) return collectTerms(e);
    return Mutator::mutateBinary(e);
  }
};

}  // namespace

StmtP skew(const StmtP& nest, int r1, int r2, int64_t factor) {
  if (r1 >= r2) throw ScheduleError("skew: the skewed level must be inside the other (r1 < r2)");
  auto chain = loopsToLevel(nest, r2, "skew");
  const For& outer = *chain[r1 - 1];
  const For& f = *chain[r2 - 1];
  if (f.step != 1) throw ScheduleError("skew: loop '" + f.var + "' has step " + std::to_string(f.step));
  // The iterator now runs over j + factor * (i - b), b the outer loop's
  // begin; its old value is j - factor * (i - b). Counting i from its begin
  // keeps the skewed bounds free of the loops around when i is a block's
  // inner loop ([8 * o, 8 * o + 8)): the window of a block of tokens.
  ExprP shift = mul(intConst(factor), sub(var(outer.var), outer.begin));
  StmtP body = CollectTerms().mutate(substitute(loopBody(f), {{f.var, sub(var(f.var), shift)}}));
  StmtP skewed = makeFor(f.id, f.var, collectTerms(add(f.begin, shift)), collectTerms(add(f.end, shift)), 1, f.loopKind,
                         body, localsOf(f));
  return replaceLevel(chain, r2, skewed);
}

}  // namespace teml::schedule
