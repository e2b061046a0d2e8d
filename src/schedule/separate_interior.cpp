// separate_interior: a loop split into its edges and its interior, where
// the interior is the iterations in which bounds guards inside it surely
// hold (FreeTensor's separate_tail, for branches). Longformer's window
//   for j in range(seq_len):
//       for t in range(-W, W + 1):
//           if 0 <= j + t * d < seq_len: ...
// becomes j in [0, W*dmax), [W*dmax, seq_len - W*dmax) without the guard,
// and [seq_len - W*dmax, seq_len). The three loops run the iterations in
// their order, so any loop may be split; a guard is dropped only where
// interval bounds prove it over every iteration it sees.
#include <algorithm>
#include <limits>
#include <optional>

#include "ir/affine.hpp"
#include "ir/mutator.hpp"
#include "schedule/nest_path.hpp"
#include "schedule/schedule_error.hpp"
#include "schedule/transforms.hpp"

namespace teml::schedule {

using namespace ir;

namespace {

constexpr int64_t kNone = std::numeric_limits<int64_t>::max();

// e = c * v + rest, with rest free of v, through + - negation, widening
// casts and products by constants; nullopt otherwise.
std::optional<int64_t> coefficientOf(const ExprP& e, const std::string& v) {
  if (!usesVar(e, v)) return 0;
  if (e->kind == ExprKind::Var && e->as<Var>().name == v) return 1;
  if (e->kind == ExprKind::Cast) return e->isInt() ? coefficientOf(e->as<Cast>().a, v) : std::nullopt;
  if (e->kind == ExprKind::Unary && e->as<Unary>().op == UnaryOp::Neg) {
    auto c = coefficientOf(e->as<Unary>().a, v);
    return c ? std::optional<int64_t>(-*c) : std::nullopt;
  }
  if (e->kind != ExprKind::Binary) return std::nullopt;
  auto& b = e->as<Binary>();
  auto a = coefficientOf(b.a, v), c = coefficientOf(b.b, v);
  if (!a || !c) return std::nullopt;
  int64_t k;
  switch (b.op) {
    case BinOp::Add: return *a + *c;
    case BinOp::Sub: return *a - *c;
    case BinOp::Mul:
      if (constValue(b.b, &k)) return *a * k;
      if (constValue(b.a, &k)) return k * *c;
      return std::nullopt;
    default: return std::nullopt;
  }
}

int64_t floorDivInt(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// The iterations [lo, hi] of v in which `cond` surely holds, given the
// ranges of the other iterators (v's own is replaced); nullopt where the
// condition is not a conjunction of comparisons linear in v.
struct Span {
  int64_t lo = -kNone, hi = kNone;
};
std::optional<Span> holdsWhere(const ExprP& cond, const std::string& v, Ranges ranges) {
  if (cond->kind != ExprKind::Binary) return std::nullopt;
  auto& b = cond->as<Binary>();
  if (b.op == BinOp::And) {
    auto x = holdsWhere(b.a, v, ranges), y = holdsWhere(b.b, v, ranges);
    if (!x || !y) return std::nullopt;
    return Span{std::max(x->lo, y->lo), std::min(x->hi, y->hi)};
  }
  if (!b.a->isInt() || !b.b->isInt()) return std::nullopt;
  // The comparison as d >= least: d = a - b (>=, >) or b - a (<=, <).
  ExprP d;
  int64_t least = 0;
  switch (b.op) {
    case BinOp::Ge: d = sub(b.a, b.b); break;
    case BinOp::Gt: d = sub(b.a, b.b), least = 1; break;
    case BinOp::Le: d = sub(b.b, b.a); break;
    case BinOp::Lt: d = sub(b.b, b.a), least = 1; break;
    default: return std::nullopt;
  }
  d = collectTerms(d);  // `8 * o - (8 * o + t - 4)` is `4 - t`: its other iterators cancel
  auto c = coefficientOf(d, v);
  if (!c) return std::nullopt;
  ranges[v] = {0, 0};  // d = c * v + d(v = 0)
  Interval rest;
  if (!bounds(d, ranges, &rest)) return std::nullopt;
  // c * v + rest.lo >= least for every value rest takes.
  if (*c == 0) return rest.lo >= least ? Span{} : Span{1, 0};
  if (*c > 0) return Span{-floorDivInt(rest.lo - least, *c), kNone};
  return Span{-kNone, floorDivInt(rest.lo - least, -*c)};
}

// A loop bound max(A, B) (a begin) or min(A, B) (an end) of which one side
// is free of v: the condition under which it is that side, and the side.
struct FixedSide {
  ExprP cond, side;
};
std::optional<FixedSide> fixedSide(const ExprP& bound, BinOp op, const std::string& v) {
  if (bound->kind != ExprKind::Binary || bound->as<Binary>().op != op) return std::nullopt;
  auto& b = bound->as<Binary>();
  bool movesA = usesVar(b.a, v), movesB = usesVar(b.b, v);
  if (movesA == movesB) return std::nullopt;
  const ExprP& fixed = movesA ? b.b : b.a;
  const ExprP& moving = movesA ? b.a : b.b;
  return FixedSide{binary(op == BinOp::Max ? BinOp::Ge : BinOp::Le, fixed, moving), fixed};
}

// Walks the body of the split loop with the ranges of the loops it passes:
// first to find where every guard it can read holds, then to drop those
// guards in the interior.
class Guards : public Mutator {
 public:
  Guards(std::string v, Ranges ranges) : v_(std::move(v)), ranges_(std::move(ranges)) {}

  // Where every branch, and every clamped bound, that uses v and that the
  // ranges decide holds; how many of each.
  Span branches, clamps;
  int branchCount = 0, clampCount = 0;
  // Set: a part of the loop (the interior or an edge), where guards surely
  // true are replaced by their then-branch, and comparisons surely false
  // by their else.
  std::optional<Interval> dropIn;

 protected:
  StmtP mutateFor(const StmtP& s) override {
    auto& f = s->as<For>();
    if (f.var == v_) return s;  // its own iterator of that name: the branches inside are not about v
    // A bound clamped by v (a window's tokens, `max(8 * o, 8 * o + t - 4)`) is
    // a guard too: in the interior it is its side free of v.
    ExprP begin = f.begin, end = f.end;
    if (f.step == 1) {
      if (auto b = fixedSide(f.begin, BinOp::Max, v_)) begin = surelyHolds(b->cond, false) ? b->side : f.begin;
      if (auto e = fixedSide(f.end, BinOp::Min, v_)) end = surelyHolds(e->cond, false) ? e->side : f.end;
    }
    Interval first, last;
    auto saved = ranges_;
    if (f.step != 0 && bounds(begin, ranges_, &first) && bounds(end, ranges_, &last)) {
      if (f.step > 0) ranges_[f.var] = {first.lo, last.hi - 1};
      else ranges_[f.var] = {last.lo + 1, first.hi};
    } else {
      ranges_.erase(f.var);
    }
    StmtP out = Mutator::mutateFor(s);
    ranges_ = saved;
    if (begin == f.begin && end == f.end) return out;
    auto& g = out->as<For>();
    return makeFor(g.id, g.var, begin, end, g.step, g.loopKind, loopBody(g), localsOf(g), g.made);
  }

  StmtP mutateIf(const StmtP& s) override {
    auto& i = s->as<If>();
    if (usesVar(i.cond, v_) && surelyHolds(i.cond, true)) return mutate(i.then);
    if (dropIn && usesVar(i.cond, v_) && surelyFails(i.cond)) return i.otherwise ? mutate(i.otherwise) : makeSeq({});
    return Mutator::mutateIf(s);
  }

  // A select on v (Longformer's dilation, `select(h < 2, 4, 1)`) is a guard
  // as a branch is: each part takes the side its condition gives there.
  ExprP mutateSelect(const ExprP& e) override {
    auto& c = e->as<Select>();
    if (usesVar(c.cond, v_) && surelyHolds(c.cond, true)) return mutate(c.a);
    if (dropIn && usesVar(c.cond, v_) && surelyFails(c.cond)) return mutate(c.b);
    return Mutator::mutateSelect(e);
  }

 private:
  // Finding: counts a guard `cond` on v (a branch's or a clamped bound's)
  // and narrows its kind's span to where it holds (false). Dropping: whether
  // it holds all over the interior.
  bool surelyHolds(const ExprP& cond, bool branch) {
    auto span = holdsWhere(cond, v_, ranges_);
    if (dropIn) return span && span->lo <= dropIn->lo && dropIn->hi <= span->hi;
    if (span) {
      Span& kind = branch ? branches : clamps;
      kind = {std::max(kind.lo, span->lo), std::min(kind.hi, span->hi)};
      ++(branch ? branchCount : clampCount);
    }
    return false;
  }
  // Dropping: whether a comparison fails all over the part.
  bool surelyFails(const ExprP& cond) {
    if (cond->kind != ExprKind::Binary) return false;
    auto& b = cond->as<Binary>();
    BinOp negated;
    switch (b.op) {
      case BinOp::Lt: negated = BinOp::Ge; break;
      case BinOp::Le: negated = BinOp::Gt; break;
      case BinOp::Gt: negated = BinOp::Le; break;
      case BinOp::Ge: negated = BinOp::Lt; break;
      default: return false;
    }
    return surelyHolds(binary(negated, b.a, b.b), true);
  }

  std::string v_;
  Ranges ranges_;
};

// The edges' statements are copies: they take ids ending in `.head` or
// `.tail`, so that the interior, where the work is, keeps the names a
// schedule goes on with.
class SuffixIds : public Mutator {
 public:
  explicit SuffixIds(std::string suffix) : suffix_(std::move(suffix)) {}
  StmtP mutate(const StmtP& s) override {
    StmtP m = Mutator::mutate(s);
    return m->id.empty() ? m : withIdentity(m, m->id + suffix_, m->made);
  }

 private:
  std::string suffix_;
};

}  // namespace

StmtP separateInterior(const StmtP& nest, int r, const std::vector<const For*>& around) {
  auto chain = loopsToLevel(nest, r, "separate_interior");
  const For& f = *chain[r - 1];
  int64_t begin, end;
  if (f.step != 1 || !constValue(f.begin, &begin) || !constValue(f.end, &end))
    throw ScheduleError("separate_interior: loop '" + f.var + "' needs constant bounds and step 1");
  Ranges ranges;
  std::vector<const For*> outer = around;
  outer.insert(outer.end(), chain.begin(), chain.begin() + (r - 1));
  for (const For* o : outer) {
    int64_t b, e;
    if (o->step == 1 && constValue(o->begin, &b) && constValue(o->end, &e) && b < e) ranges[o->var] = {b, e - 1};
  }
  ranges[f.var] = {begin, end - 1};
  Guards find(f.var, ranges);
  find.mutate(loopBody(f));
  if (find.branchCount + find.clampCount == 0)
    throw ScheduleError("separate_interior: no branch inside '" + f.var + "' compares an expression linear in '" + f.var +
                        "' with bounds of the loops around it");
  // The branches decide; clamped bounds narrow the interior further where
  // some iteration still takes every branch (the guards left are dropped
  // wherever they hold all over it).
  Span both{std::max(find.branches.lo, find.clamps.lo), std::min(find.branches.hi, find.clamps.hi)};
  bool someTakeAll = std::max(begin, both.lo) <= std::min(end - 1, both.hi);
  const Span& interior = someTakeAll || find.branchCount == 0 ? both : find.branches;
  int64_t lo = std::max(begin, interior.lo), hi = std::min(end - 1, interior.hi);
  if (lo > hi)
    throw ScheduleError("separate_interior: no iteration of '" + f.var + "' takes the branches inside it in every case");
  // Each part without the guards it decides.
  auto decided = [&](int64_t from, int64_t to) {
    Guards drop(f.var, ranges);
    drop.dropIn = Interval{from, to - 1};
    return drop.mutate(loopBody(f));
  };
  auto part = [&](const std::string& id, int64_t from, int64_t to, const StmtP& body) {
    return makeFor(id, f.var, intConst(from), intConst(to), 1, f.loopKind, body, localsOf(f));
  };
  std::vector<StmtP> parts;
  auto edge = [&](const std::string& suffix, int64_t from, int64_t to) {
    return part(freshLoopId(nest, f.id + suffix), from, to, SuffixIds(suffix).mutate(decided(from, to)));
  };
  if (lo > begin) parts.push_back(edge(".head", begin, lo));
  parts.push_back(part(f.id, lo, hi + 1, decided(lo, hi + 1)));
  if (hi + 1 < end) parts.push_back(edge(".tail", hi + 1, end));
  return replaceLevel(chain, r, makeSeq(parts));
}

}  // namespace teml::schedule
