#include "ir/affine.hpp"
#include "ir/mutator.hpp"
#include "schedule/nest_path.hpp"
#include "schedule/schedule_error.hpp"
#include "schedule/transforms.hpp"

namespace teml::schedule {

using namespace ir;

namespace {

// Replaces every occurrence of one expression by another.
class Replace : public Mutator {
 public:
  Replace(ExprP from, ExprP to) : from_(std::move(from)), to_(std::move(to)) {}
  using Mutator::mutate;
  ExprP mutate(const ExprP& e) override { return equal(e, from_) ? to_ : Mutator::mutate(e); }

 private:
  ExprP from_, to_;
};

}  // namespace

StmtP separateTail(const StmtP& nest, int r) {
  auto chain = loopsToLevel(nest, r, "separate_tail");
  const For& f = *chain[r - 1];
  if (f.step != 1) throw ScheduleError("separate_tail: loop '" + f.var + "' has step " + std::to_string(f.step));
  // The first bound min(c*v + d, X) of a loop inside, with c > 0 and X free of v.
  ExprP found, first, limit;
  int64_t c = 0, d = 0;
  forEachStmt(loopBody(f), [&](const StmtP& s) {
    if (found || s->kind != StmtKind::For) return;
    auto& g = s->as<For>();
    if (g.end->kind != ExprKind::Binary) return;
    auto& m = g.end->as<Binary>();
    ir::Affine a;
    if (m.op != BinOp::Min || usesVar(m.b, f.var) || !ir::toAffine(m.a, &a) || a.coeff(f.var) <= 0) return;
    if (a.coeffs.size() != 1) return;  // c*v + d only
    found = g.end;
    first = m.a;
    limit = m.b;
    c = a.coeff(f.var);
    d = a.constant;
  });
  if (!found)
    throw ScheduleError("separate_tail: no loop inside '" + f.var + "' ends at min(c * " + f.var + " + d, limit)");
  // c*v + d <= limit  <=>  v <= floor((limit - d) / c): those iterations take the first bound.
  ExprP split = max(f.begin, min(f.end, add(floorDiv(sub(limit, intConst(d)), intConst(c)), intConst(1))));
  StmtP full = makeFor(f.id, f.var, f.begin, split, 1, f.loopKind, Replace(found, first).mutate(loopBody(f)), localsOf(f));
  StmtP tail = makeFor(freshLoopId(nest, f.id + ".tail"), f.var, split, f.end, 1, f.loopKind, Replace(found, limit).mutate(loopBody(f)), localsOf(f));
  return replaceLevel(chain, r, makeSeq({full, tail}));
}

}  // namespace teml::schedule
