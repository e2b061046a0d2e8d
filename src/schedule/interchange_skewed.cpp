// interchange_skewed: two loops trade places where the inner one's bounds
// move with the outer iterator (a skewed loop, a triangle), keeping the set
// of iterations: the new outer loop runs over every value the inner
// iterator took, the new inner one over the outer iterator's values for
// which it did (the bounds solved for it, Fourier-Motzkin on one variable).
// `interchange` instead counts such a loop from zero first, which suits a
// strip-mined block (tiling) but undoes a skew.
#include "ir/affine.hpp"
#include "ir/mutator.hpp"
#include "schedule/nest_path.hpp"
#include "schedule/schedule_error.hpp"
#include "schedule/transforms.hpp"

namespace teml::schedule {

using namespace ir;

namespace {

// A bound of the inner loop as c + p * i, c free of the outer iterator i.
struct Moving {
  ExprP c;
  int64_t p = 0;
};

Moving split(const ExprP& bound, const std::string& i, const std::string& which) {
  if (!usesVar(bound, i)) return {bound, 0};
  Affine a;
  if (!toAffine(bound, &a))
    throw ScheduleError("interchange_skewed: the " + which + " bound of the inner loop moves with '" + i +
                        "' but is not affine in it");
  return {substitute(bound, {{i, intConst(0)}}), a.coeff(i)};
}

// ceil(n / d) for d > 0.
ExprP ceilDiv(const ExprP& n, int64_t d) { return d == 1 ? n : floorDiv(add(n, intConst(d - 1)), intConst(d)); }
ExprP floorDivBy(const ExprP& n, int64_t d) { return d == 1 ? n : floorDiv(n, intConst(d)); }

}  // namespace

StmtP interchangeSkewed(const StmtP& nest, int r) {
  auto chain = loopsToLevel(nest, r + 1, "interchange_skewed");
  const For& outer = *chain[r - 1];
  const For& inner = *chain[r];
  if (outer.step != 1 || inner.step != 1)
    throw ScheduleError("interchange_skewed: loop '" + (outer.step != 1 ? outer.var : inner.var) + "' has step " +
                        std::to_string(outer.step != 1 ? outer.step : inner.step));
  const std::string& i = outer.var;
  Moving lo = split(inner.begin, i, "lower"), hi = split(inner.end, i, "upper");
  if (lo.p == 0 && hi.p == 0)
    throw ScheduleError("interchange_skewed: the bounds of loop '" + inner.var + "' do not move with '" + i +
                        "'; use interchange");
  // i in [a, b), j in [c + p*i, d + q*i).
  ExprP a = outer.begin, last = sub(outer.end, intConst(1)), j = var(inner.var);
  // j runs from the least c + p*i to the greatest d + q*i over i's range.
  ExprP jBegin = add(lo.c, mul(intConst(lo.p), lo.p >= 0 ? a : last));
  ExprP jEnd = add(hi.c, mul(intConst(hi.p), hi.p >= 0 ? last : a));
  // For a given j: p*i <= j - c and q*i >= j - d + 1, with a <= i < b.
  ExprP iBegin = a, iEnd = outer.end;
  if (lo.p > 0) iEnd = min(iEnd, add(floorDivBy(sub(j, lo.c), lo.p), intConst(1)));
  if (lo.p < 0) iBegin = max(iBegin, ceilDiv(sub(lo.c, j), -lo.p));
  if (hi.p > 0) iBegin = max(iBegin, ceilDiv(add(sub(j, hi.c), intConst(1)), hi.p));
  if (hi.p < 0) iEnd = min(iEnd, add(floorDivBy(sub(sub(hi.c, j), intConst(1)), -hi.p), intConst(1)));
  StmtP newInner = makeFor(outer.id, outer.var, collectTerms(iBegin), collectTerms(iEnd), 1, outer.loopKind,
                           loopBody(inner), localsOf(outer));
  StmtP newOuter = makeFor(inner.id, inner.var, collectTerms(jBegin), collectTerms(jEnd), 1, inner.loopKind, newInner,
                           localsOf(inner));
  return replaceLevel(chain, r, newOuter);
}

}  // namespace teml::schedule
