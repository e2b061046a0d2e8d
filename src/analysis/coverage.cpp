#include "analysis/coverage.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "ir/affine.hpp"
#include "ir/scoped_visitor.hpp"

namespace teml::analysis {

using namespace ir;

namespace {

Affine combine(Affine a, const Affine& b, int64_t sign) {
  for (auto& [v, c] : b.coeffs) a.coeffs[v] += sign * c;
  a.constant += sign * b.constant;
  for (auto it = a.coeffs.begin(); it != a.coeffs.end();) it = it->second == 0 ? a.coeffs.erase(it) : std::next(it);
  return a;
}

// a - b, when it is a constant.
bool constantDifference(const Affine& a, const Affine& b, int64_t* out) {
  Affine d = combine(a, b, -1);
  if (!d.coeffs.empty()) return false;
  *out = d.constant;
  return true;
}

// One index dimension over all accesses: the loop it moves with (or none)
// and, per access, the rest of the index (invariant in the loops).
struct Dimension {
  const For* loop = nullptr;
  std::vector<Affine> rest;
};

bool dimension(const std::vector<const For*>& loops, const std::vector<std::vector<ExprP>>& accesses, size_t d,
               Dimension* out) {
  bool first = true;
  for (auto& idx : accesses) {
    Affine a;
    if (d >= idx.size() || !toAffine(idx[d], &a)) return false;
    const For* moving = nullptr;
    for (auto* l : loops) {
      int64_t c = a.coeff(l->var);
      if (c == 0) continue;
      if (c != 1 || moving) return false;
      moving = l;
    }
    if (!first && moving != out->loop) return false;
    first = false;
    out->loop = moving;
    if (moving) a.coeffs.erase(moving->var);
    out->rest.push_back(a);
  }
  return !first;
}

// The offsets of every access's rest from the first one's, when constant.
bool offsets(const Dimension& dim, std::vector<int64_t>* out) {
  for (auto& r : dim.rest) {
    int64_t c;
    if (!constantDifference(r, dim.rest.front(), &c)) return false;
    out->push_back(c);
  }
  return true;
}

// a >= min(high, extent).
bool atLeast(const Affine& a, const Affine& high, int64_t extent) {
  int64_t c;
  if (constantDifference(a, high, &c) && c >= 0) return true;
  return a.coeffs.empty() && a.constant >= extent;
}

// z + base >= min(high, extent), where z may be a min of such bounds (the
// clamped end of a strip-mined loop).
bool reaches(const ExprP& z, const Affine& base, const Affine& high, int64_t extent) {
  if (z->kind == ExprKind::Binary && z->as<Binary>().op == BinOp::Min) {
    auto& m = z->as<Binary>();
    return reaches(m.a, base, high, extent) && reaches(m.b, base, high, extent);
  }
  Affine a;
  return toAffine(z, &a) && atLeast(combine(a, base, 1), high, extent);
}

// `end` is min(begin + S, E) or min(E, begin + S), S a constant: *unclamped
// = begin + S, *clamp = E.
bool clampedEnd(const ExprP& end, const Affine& begin, Affine* unclamped, Affine* clamp) {
  if (end->kind != ExprKind::Binary || end->as<Binary>().op != BinOp::Min) return false;
  auto& m = end->as<Binary>();
  for (auto [a, b] : {std::make_pair(m.a, m.b), std::make_pair(m.b, m.a)}) {
    int64_t span;
    if (toAffine(a, unclamped) && constantDifference(*unclamped, begin, &span) && toAffine(b, clamp)) return true;
  }
  return false;
}

// Iterations of `l` at or past the constant `clamp` would touch only
// elements past the tensor's end: in every access, one dimension is l's
// iterator plus a constant c with clamp + c >= the extent, and no other
// dimension moves with l.
bool clampCutsOnlyPastTheEnd(const For& l, const Affine& clamp, const std::vector<std::vector<ExprP>>& accesses,
                             const std::vector<int64_t>& shape) {
  if (!clamp.coeffs.empty()) return false;
  for (auto& idx : accesses) {
    int found = 0;
    for (size_t d = 0; d < idx.size() && d < shape.size(); ++d) {
      Affine a;
      if (!toAffine(idx[d], &a)) return false;
      int64_t c = a.coeff(l.var);
      if (c == 0) continue;
      a.coeffs.erase(l.var);
      if (c != 1 || !a.coeffs.empty() || clamp.constant + a.constant < shape[d]) return false;
      ++found;
    }
    if (found != 1) return false;
  }
  return true;
}

}  // namespace

// `shape`: the tensor's; null where the answer only tells whether elements
// repeat, so that a loop's end clamped by a min may cut the box anywhere.
static bool exactBox(const AccessGroup& g, std::vector<Affine>* lo, std::vector<Affine>* hi,
                     const std::vector<int64_t>* shape);

// [lo, hi) holds every element of the box that lies inside the tensor.
static bool holdsBox(const std::vector<Affine>& lo, const std::vector<Affine>& hi, const LocalBox& box,
                     const std::vector<int64_t>& shape);

namespace {
// The proofs below count iterations upward.
bool countUp(const std::vector<const For*>& loops) {
  return std::all_of(loops.begin(), loops.end(), [](const For* l) { return l->step > 0; });
}
}  // namespace

bool iterationsDisjoint(const std::vector<const For*>& loops, const std::vector<std::vector<ExprP>>& accesses) {
  if (accesses.empty()) return true;
  if (!countUp(loops)) return false;
  std::vector<Affine> lo, hi;
  if (exactBox({loops, accesses}, &lo, &hi, nullptr)) return true;
  size_t rank = accesses.front().size();
  for (auto& idx : accesses)
    if (idx.size() != rank) return false;
  // Two iterations that differ in loop L (by at least its step) touch
  // different elements when some dimension moves with L and the accesses'
  // offsets in it spread over less than that step.
  for (auto* l : loops) {
    bool separated = false;
    for (size_t d = 0; d < rank && !separated; ++d) {
      Dimension dim;
      std::vector<int64_t> off;
      if (!dimension(loops, accesses, d, &dim) || dim.loop != l || !offsets(dim, &off)) continue;
      auto [lo, hi] = std::minmax_element(off.begin(), off.end());
      separated = *hi - *lo < l->step;
    }
    if (!separated) return false;
  }
  return true;
}

bool coversBox(const std::vector<const For*>& loops, const std::vector<std::vector<ExprP>>& accesses,
               const LocalBox& box, const std::vector<int64_t>& shape) {
  size_t rank = box.extent.size();
  if (accesses.empty() || shape.size() != rank || box.offset.size() != rank || !countUp(loops)) return false;
  std::vector<Affine> lo, hi;
  if (exactBox({loops, accesses}, &lo, &hi, &shape) && lo.size() == rank && holdsBox(lo, hi, box, shape)) return true;
  std::vector<const For*> moved;
  for (size_t d = 0; d < rank; ++d) {
    Dimension dim;
    std::vector<int64_t> off;
    Affine offset;
    if (!dimension(loops, accesses, d, &dim) || !offsets(dim, &off) || !toAffine(box.offset[d], &offset)) return false;
    int64_t cmin = *std::min_element(off.begin(), off.end());
    Affine base = dim.rest.front();
    base.constant += cmin;
    if (!dim.loop) {
      // One fixed index: the box must be that one element.
      int64_t c;
      if (box.extent[d] != 1 || !constantDifference(base, offset, &c) || c != 0 || off.size() == 0 ||
          *std::max_element(off.begin(), off.end()) != cmin)
        return false;
      continue;
    }
    const For& l = *dim.loop;
    // A loop moving two dimensions (a diagonal) covers no box.
    if (std::find(moved.begin(), moved.end(), &l) != moved.end()) return false;
    moved.push_back(&l);
    // Every residue of the step is reached: offsets cmin .. cmin + step - 1.
    for (int64_t r = 0; r < l.step; ++r)
      if (std::find(off.begin(), off.end(), cmin + r) == off.end()) return false;
    // The first index reached is at or before the box's (clamped) start ...
    Affine begin;
    if (!toAffine(l.begin, &begin)) return false;
    Affine first = combine(begin, base, 1);
    int64_t c;
    bool startOk = (constantDifference(first, offset, &c) && c <= 0) || (first.coeffs.empty() && first.constant <= 0);
    // ... and the last at or past its (clamped) end.
    Affine high = offset;
    high.constant += box.extent[d];
    if (!startOk) return false;
    // With a constant trip count the last step's offsets reach past the end
    // (an unrolled loop's range ends after its last step's first iteration).
    Affine end;
    int64_t span;
    bool counted = toAffine(l.end, &end) && constantDifference(end, begin, &span) && span > 0;
    if (counted) {
      Affine last = first;
      last.constant += (span + l.step - 1) / l.step * l.step;
      if (!atLeast(last, high, shape[d])) return false;
    } else if (!reaches(l.end, base, high, shape[d])) {
      return false;
    }
  }
  // Loops that no dimension moves with must run at least once.
  for (auto* l : loops) {
    if (std::find(moved.begin(), moved.end(), l) != moved.end()) continue;
    Affine b, e;
    int64_t trips;
    if (!toAffine(l->begin, &b) || !toAffine(l->end, &e) || !constantDifference(e, b, &trips) || trips < 1) return false;
  }
  return true;
}

// The box a group touches, exactly: per dimension [lo, hi), each element by
// one iteration and access only. Each loop is seen as its first value plus
// a multiple of its step below a constant span, so the inner loop of a
// strip-mined pair (whose range moves with the outer one) counts too. In
// each dimension the loops moving it and the accesses' offsets must form
// digits of one number: the offsets 0..r-1, then loops whose steps in the
// index are r, r times the first loop's count, and so on. A point loop
// clamped at the end (`[b, min(b + S, E))`, the remainder of a strip-mined
// loop) counts as S long where the clamp cuts only elements past the tensor:
// the loop alone moves its dimension, plus constants c with E + c at or past
// the extent.
static bool exactBox(const AccessGroup& g, std::vector<Affine>* lo, std::vector<Affine>* hi,
                     const std::vector<int64_t>* shape) {
  struct Digit {
    int64_t unit, count;
  };
  // Each loop's iterator as an affine expression of the loops' offsets
  // (named by the loop) and the iterators around the group.
  std::map<std::string, Affine> value;
  std::map<std::string, Digit> loopDigit;
  auto rewrite = [&](const Affine& a) {
    Affine out{{}, a.constant};
    for (auto& [v, c] : a.coeffs) {
      auto it = value.find(v);
      out = combine(out, it == value.end() ? Affine{{{v, 1}}, 0} : it->second, c);
    }
    return out;
  };
  std::map<const For*, Affine> clamps;  // a point loop's clamp E
  for (auto* l : g.loops) {
    Affine begin, end, clamp;
    int64_t span;
    if (!toAffine(l->begin, &begin)) return false;
    int64_t first, last;
    if (constValue(l->begin, &first) && constValue(l->end, &last) && first < last && last - first <= l->step) {
      value[l->var] = Affine{{}, first};  // runs once (a remainder's block loop): a constant, no digit
      continue;
    }
    if (!toAffine(l->end, &end)) {
      if (!clampedEnd(l->end, begin, &end, &clamp)) return false;
      clamps[l] = clamp;
    }
    // The length with the loops around it as they run (a constant where an outer loop runs once).
    if (!constantDifference(rewrite(end), rewrite(begin), &span) || span < 1) return false;
    Affine v = rewrite(begin);
    std::string offset = "@" + l->var;
    v.coeffs[offset] = 1;
    value[l->var] = v;
    loopDigit[offset] = {l->step, (span + l->step - 1) / l->step};
  }
  size_t rank = g.accesses.front().size();
  std::set<std::string> used;
  for (size_t d = 0; d < rank; ++d) {
    std::vector<Affine> idx;
    for (auto& access : g.accesses) {
      Affine a;
      if (access.size() != rank || !toAffine(access[d], &a)) return false;
      idx.push_back(rewrite(a));
    }
    // The loops moving this dimension, the same way in every access.
    std::map<std::string, int64_t> moving;
    for (auto& [v, c] : idx.front().coeffs)
      if (loopDigit.count(v)) moving[v] = c;
    std::vector<int64_t> off;
    for (auto& a : idx) {
      Affine rest = a;
      for (auto& [v, c] : moving) {
        if (a.coeff(v) != c || c < 1) return false;
        rest.coeffs.erase(v);
      }
      for (auto& [v, c] : rest.coeffs)
        if (loopDigit.count(v)) return false;
      int64_t k;
      Affine first = idx.front();
      for (auto& [v, c] : moving) first.coeffs.erase(v);
      if (!constantDifference(rest, first, &k)) return false;
      off.push_back(k);
    }
    std::sort(off.begin(), off.end());
    off.erase(std::unique(off.begin(), off.end()), off.end());
    for (size_t k = 0; k < off.size(); ++k)
      if (off[k] != off.front() + static_cast<int64_t>(k)) return false;
    std::vector<Digit> digits;
    for (auto& [v, c] : moving) {
      if (!used.insert(v).second) return false;  // a loop moving two dimensions
      digits.push_back({c * loopDigit[v].unit, loopDigit[v].count});
    }
    std::sort(digits.begin(), digits.end(), [](const Digit& x, const Digit& y) { return x.unit < y.unit; });
    int64_t reach = static_cast<int64_t>(off.size());
    for (auto& dg : digits) {
      if (dg.unit != reach) return false;
      reach *= dg.count;
    }
    Affine base = idx.front();
    for (auto& [v, c] : moving) base.coeffs.erase(v);
    base.constant += off.front();
    Affine top = base;
    top.constant += reach;
    lo->push_back(base);
    hi->push_back(top);
  }
  // A loop that moves no dimension would repeat its elements.
  for (auto& [v, dg] : loopDigit)
    if (!used.count(v) && dg.count > 1) return false;
  if (!shape) return true;
  for (auto& [l, clamp] : clamps)
    if (!clampCutsOnlyPastTheEnd(*l, clamp, g.accesses, *shape)) return false;
  return true;
}

static bool same(const Affine& a, const Affine& b) {
  int64_t c;
  return constantDifference(a, b, &c) && c == 0;
}

static bool holdsBox(const std::vector<Affine>& lo, const std::vector<Affine>& hi, const LocalBox& box,
                     const std::vector<int64_t>& shape) {
  for (size_t d = 0; d < box.extent.size(); ++d) {
    Affine offset, high;
    int64_t c;
    if (!toAffine(box.offset[d], &offset)) return false;
    high = offset;
    high.constant += box.extent[d];
    bool startOk = (constantDifference(lo[d], offset, &c) && c <= 0) || (lo[d].coeffs.empty() && lo[d].constant <= 0);
    if (!startOk || !atLeast(hi[d], high, shape[d])) return false;
  }
  return true;
}

bool groupsTileBox(const std::vector<AccessGroup>& groups, const LocalBox& box, const std::vector<int64_t>& shape) {
  if (groups.size() == 1) return coversBox(groups[0].loops, groups[0].accesses, box, shape);
  for (auto& g : groups)
    if (!countUp(g.loops)) return false;
  size_t rank = box.extent.size();
  std::vector<std::vector<Affine>> lo(groups.size()), hi(groups.size());
  for (size_t g = 0; g < groups.size(); ++g)
    if (groups[g].accesses.empty() || groups[g].accesses.front().size() != rank || !exactBox(groups[g], &lo[g], &hi[g], &shape))
      return false;
  // The one dimension where the boxes differ; they must follow each other there.
  int split = -1;
  for (size_t d = 0; d < rank; ++d)
    for (size_t g = 1; g < groups.size(); ++g)
      if (!same(lo[g][d], lo[0][d]) || !same(hi[g][d], hi[0][d])) {
        if (split >= 0 && split != static_cast<int>(d)) return false;
        split = static_cast<int>(d);
      }
  if (split < 0) return false;  // the same box twice
  std::vector<size_t> order(groups.size());
  for (size_t g = 0; g < order.size(); ++g) order[g] = g;
  int64_t c;
  for (size_t g = 0; g < groups.size(); ++g)
    if (!constantDifference(lo[g][split], lo[0][split], &c)) return false;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    int64_t x, y;
    constantDifference(lo[a][split], lo[0][split], &x);
    constantDifference(lo[b][split], lo[0][split], &y);
    return x < y;
  });
  for (size_t k = 0; k + 1 < order.size(); ++k)
    if (!same(hi[order[k]][split], lo[order[k + 1]][split])) return false;
  std::vector<Affine> ulo, uhi;
  for (size_t d = 0; d < rank; ++d) {
    ulo.push_back(lo[order.front()][d]);
    uhi.push_back(hi[order.back()][d]);
  }
  return holdsBox(ulo, uhi, box, shape);
}

namespace {

// Looks for one store that writes the whole box; guarded stores may not run
// and reductions read, so only unguarded stores count.
class CoveringStore : public ScopedVisitor {
 public:
  CoveringStore(const std::string& tensor, const LocalBox& box, const std::vector<int64_t>& shape)
      : tensor_(tensor), box_(box), shape_(shape) {}
  bool found = false;
  using Visitor::visit;
  void visit(const StmtP& s) override {
    if (!found) Visitor::visit(s);
  }
  void visit(const ExprP&) override {}

 protected:
  void visitStore(const Store& st) override { found = st.tensor == tensor_ && coversBox(loops(), {st.indices}, box_, shape_); }
  void visitIf(const If&) override {}
  void visitLibCall(const LibCall&) override {}

 private:
  const std::string& tensor_;
  const LocalBox& box_;
  const std::vector<int64_t>& shape_;
};

}  // namespace

bool storeCoversBox(const For& owner, const std::string& tensor, const LocalBox& box, const std::vector<int64_t>& shape) {
  CoveringStore v(tensor, box, shape);
  v.visit(loopBody(owner));
  return v.found;
}

}  // namespace teml::analysis
