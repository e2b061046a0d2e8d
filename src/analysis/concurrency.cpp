#include "analysis/concurrency.hpp"

#include <algorithm>
#include <functional>
#include <set>
#include <vector>

#include "ir/affine.hpp"
#include "ir/mutator.hpp"
#include "ir/printer.hpp"
#include "ir/scoped_visitor.hpp"

namespace teml::analysis {

using namespace ir;

namespace {

// What is known of an inner loop's iterator w, relative to the analyzed loop's
// iterator v: either w = a*v + base + r with r in [0, span - 1] (the inner loop
// of a strip-mined v), or w in the constant range [lo, hi].
struct InnerRange {
  bool block = false;
  int64_t a = 0;
  Affine base;  // begin minus a*v: outer iterators and a constant
  int64_t span = 0;
  bool known = false;  // constant range known
  int64_t lo = 0, hi = 0;
};
using InnerVars = std::map<std::string, InnerRange>;

struct Access {
  std::string tensor;
  std::vector<ExprP> indices;
  InnerVars inner;             // iterators of loops inside the analyzed loop
  const Stmt* stmt = nullptr;  // the Store/Reduce writing, or null for a read
  bool isReduce = false;
  ReduceOp op = ReduceOp::Add;
  std::string text() const {
    std::string s = tensor;
    for (auto& i : indices) s += "[" + toString(i) + "]";
    return s;
  }
};

bool mentionsAny(const Affine& a, const InnerVars& vars) {
  for (auto& [v, c] : a.coeffs)
    if (vars.count(v)) return true;
  return false;
}

// An upper bound of end - begin when it is a constant: through min, max,
// added constants, differences and divisions by constants (the trip count
// of a chunk of a chunk: floordiv(max(min(128 j + 128, n) - 128 j, 0) + 31, 32)
// is at most 4).
bool maxSpan(const ExprP& end, const ExprP& begin, int64_t* span) {
  if (constValue(sub(end, begin), span)) return true;
  if (end->kind != ExprKind::Binary) return false;
  auto& b = end->as<Binary>();
  int64_t k, x, y;
  if (b.op == BinOp::Sub) return maxSpan(b.a, add(begin, b.b), span);  // a - c - begin = a - (begin + c)
  if (b.op == BinOp::Add && constValue(b.b, &k) && maxSpan(b.a, begin, &x)) {
    *span = x + k;
    return true;
  }
  if (b.op == BinOp::Min) {
    bool hx = maxSpan(b.a, begin, &x), hy = maxSpan(b.b, begin, &y);
    if (hx && hy) *span = std::min(x, y);
    else if (hx) *span = x;
    else if (hy) *span = y;
    return hx || hy;
  }
  if (b.op == BinOp::Max && maxSpan(b.a, begin, &x) && maxSpan(b.b, begin, &y)) {
    *span = std::max(x, y);
    return true;
  }
  int64_t first;
  if (b.op == BinOp::FloorDiv && b.isInt() && constValue(b.b, &k) && k > 0 &&
      constValue(begin, &first) && maxSpan(b.a, intConst(0), &x)) {
    *span = (x >= 0 ? x / k : -((-x + k - 1) / k)) - first;  // floor(x / k), monotone in x
    return true;
  }
  return false;
}

// Inner iterators in `a` whose range is a block (not a constant range).
bool mentionsBlocks(const Affine& a, const InnerVars& vars) {
  for (auto& [w, c] : a.coeffs)
    if (vars.count(w) && !vars.at(w).known) return true;
  return false;
}

InnerRange rangeOf(const For& f, const std::string& v, const InnerVars& inner) {
  InnerRange r;
  int64_t b, e, span;
  if (constValue(f.begin, &b) && constValue(f.end, &e)) {
    r.known = true;
    r.lo = f.step > 0 ? b : e + 1;
    r.hi = f.step > 0 ? e - 1 : b;
    return r;
  }
  if (f.step < 0) return r;  // counting down: only constant ranges are known
  if (constValue(f.begin, &b) && maxSpan(f.end, f.begin, &span)) {  // [b, end) with end - b <= span
    r.known = true;
    r.lo = b;
    r.hi = b + std::max<int64_t>(span, 1) - 1;
    return r;
  }
  Affine begin;
  if (toAffine(f.begin, &begin) && begin.coeff(v) > 0 && !mentionsBlocks(begin, inner) &&
      maxSpan(f.end, f.begin, &span) && span <= begin.coeff(v)) {
    r.block = true;
    r.a = begin.coeff(v);
    r.base = begin;
    r.base.coeffs.erase(v);
    r.span = std::max<int64_t>(span, 1);
  }
  return r;
}

// Every access in a loop's body, with what is known of the inner iterators there.
class AccessCollector : public ScopedVisitor {
 public:
  AccessCollector(const std::string& v, std::vector<Access>& out) : v_(v), out_(out) {}

 protected:
  void visitFor(const For& f) override {
    auto saved = inner_;
    inner_[f.var] = rangeOf(f, v_, inner_);
    ScopedVisitor::visitFor(f);
    inner_ = saved;
  }
  // A tensor defined inside the loop's body (a VarDef, a loop's local) is
  // every iteration's own: its accesses cannot race.
  void visitLoad(const Load& l) override {
    if (!isScoped(l.tensor)) out_.push_back(Access{l.tensor, l.indices, inner_});
    Visitor::visitLoad(l);
  }
  void visitStore(const Store& st) override {
    Visitor::visitStore(st);
    if (!isScoped(st.tensor)) out_.push_back(Access{st.tensor, st.indices, inner_, &st});
  }
  void visitReduce(const Reduce& r) override {
    Visitor::visitReduce(r);
    if (!isScoped(r.tensor)) out_.push_back(Access{r.tensor, r.indices, inner_, &r, true, r.op});
  }

 private:
  const std::string& v_;
  std::vector<Access>& out_;
  InnerVars inner_;
};

// An index as C*v + (outer iterators) + g with g in [lo, hi] for one iteration of v.
struct Spread {
  int64_t c = 0;
  Affine outer;
  int64_t lo = 0, hi = 0;
};

bool spread(const Affine& a, const std::string& v, const InnerVars& inner, Spread* out) {
  Spread s;
  s.c = a.coeff(v);
  s.lo = s.hi = a.constant;
  for (auto& [w, c] : a.coeffs) {
    if (w == v) continue;
    auto it = inner.find(w);
    if (it == inner.end()) {
      s.outer.coeffs[w] += c;
      continue;
    }
    const InnerRange& r = it->second;
    int64_t lo, hi;
    if (r.block) {  // w = a*v + base + [0, span - 1], base's inner iterators in constant ranges
      s.c += c * r.a;
      lo = c * r.base.constant + std::min<int64_t>(0, c * (r.span - 1));
      hi = c * r.base.constant + std::max<int64_t>(0, c * (r.span - 1));
      for (auto& [x, k] : r.base.coeffs) {
        auto in = inner.find(x);
        if (in == inner.end()) {
          s.outer.coeffs[x] += c * k;
          continue;
        }
        if (!in->second.known) return false;
        lo += std::min(c * k * in->second.lo, c * k * in->second.hi);
        hi += std::max(c * k * in->second.lo, c * k * in->second.hi);
      }
    } else if (r.known) {
      lo = std::min(c * r.lo, c * r.hi);
      hi = std::max(c * r.lo, c * r.hi);
    } else {
      return false;
    }
    s.lo += lo;
    s.hi += hi;
  }
  for (auto it = s.outer.coeffs.begin(); it != s.outer.coeffs.end();)
    it = it->second == 0 ? s.outer.coeffs.erase(it) : std::next(it);
  *out = s;
  return true;
}

// True when accesses x and y, made in two different iterations of the loop over
// `v` with step `step`, can never touch the same element.
bool separated(const Access& x, const Access& y, const std::string& v, int64_t step) {
  if (x.indices.size() != y.indices.size()) return false;
  for (size_t d = 0; d < x.indices.size(); ++d) {
    Affine a, b;
    if (!toAffine(x.indices[d], &a) || !toAffine(y.indices[d], &b)) continue;
    // The same expression of outer iterators plus different constants: never equal.
    if (a.coeff(v) == 0 && b.coeff(v) == 0 && !mentionsAny(a, x.inner) && !mentionsAny(b, y.inner) &&
        a.coeffs == b.coeffs && a.constant != b.constant)
      return true;
    // Direct use of v with no inner iterators: c*v + ka == c*v' + kb needs
    // (kb - ka) to be a nonzero multiple of c*step.
    int64_t c = a.coeff(v);
    if (c != 0 && b.coeff(v) == c && !mentionsAny(a, x.inner) && !mentionsAny(b, y.inner)) {
      Affine ra = a, rb = b;
      ra.coeffs.erase(v);
      rb.coeffs.erase(v);
      int64_t delta = b.constant - a.constant, period = c * step;
      if (ra.coeffs == rb.coeffs && (delta == 0 || delta % period != 0)) return true;
    }
    // Each iteration of v touches a window of the dimension: windows narrower
    // than the distance between iterations never overlap.
    Spread sx, sy;
    if (spread(a, v, x.inner, &sx) && spread(b, v, y.inner, &sy) && sx.c != 0 && sx.c == sy.c &&
        sx.outer.coeffs == sy.outer.coeffs) {
      int64_t width = std::max(sx.hi, sy.hi) - std::min(sx.lo, sy.lo);
      if (width < std::abs(sx.c) * step) return true;
    }
  }
  return false;
}

bool invariant(const Access& x, const std::string& v) {
  for (auto& i : x.indices) {
    if (usesVar(i, v)) return false;
    for (auto& [w, r] : x.inner)
      if (usesVar(i, w)) return false;
    bool hasLoad = false;
    forEachExpr(i, [&](const ExprP& e) { hasLoad |= e->kind == ExprKind::Load; });
    if (hasLoad) return false;
  }
  return true;
}

// Two accesses that differ by a nonzero constant in some dimension, in the
// same iteration, never meet.
bool provablyDistinct(const Access& x, const Access& y) {
  if (x.tensor != y.tensor || x.indices.size() != y.indices.size()) return false;
  for (size_t d = 0; d < x.indices.size(); ++d) {
    Affine a, b;
    if (toAffine(x.indices[d], &a) && toAffine(y.indices[d], &b) && a.coeffs == b.coeffs &&
        a.constant != b.constant)
      return true;
  }
  return false;
}

bool sameLocation(const Access& x, const Access& y) {
  if (x.tensor != y.tensor || x.indices.size() != y.indices.size()) return false;
  for (size_t d = 0; d < x.indices.size(); ++d)
    if (!equal(x.indices[d], y.indices[d])) return false;
  return true;
}

// A Reduce node may be reached twice (unrolled copies share unchanged statements): one entry.
void setStrategy(ConcurrencyReport& rep, const Reduce* r, ReduceStrategy s) {
  for (auto& [node, strategy] : rep.reduces)
    if (node == r) {
      strategy = s;
      return;
    }
  rep.reduces.push_back({r, s});
}

}  // namespace

ConcurrencyReport analyzeConcurrentLoop(const For& loop, bool simd, const std::set<std::string>& apart) {
  ConcurrencyReport rep;
  std::vector<Access> acc;
  // Tensors local to this loop are private to one iteration, as those
  // defined inside its body: the collector leaves them out.
  AccessCollector(loop.var, acc).visit(loop.body);
  const char* what = simd ? "vectorized" : "parallel";
  std::set<size_t> racyReduces;
  for (size_t i = 0; i < acc.size(); ++i) {
    if (!acc[i].stmt) continue;  // pairs start from a write
    for (size_t j = 0; j < acc.size(); ++j) {
      if (acc[j].tensor != acc[i].tensor || apart.count(acc[i].tensor)) continue;
      if (j < i && acc[j].stmt) continue;  // write pairs are seen once
      // Which iterations race does not depend on their order: the step's size counts.
      if (separated(acc[i], acc[j], loop.var, loop.step > 0 ? loop.step : -loop.step)) continue;
      bool bothReduce = acc[j].stmt && acc[i].isReduce && acc[j].isReduce && acc[i].op == acc[j].op;
      if (bothReduce) {
        racyReduces.insert(i);
        racyReduces.insert(j);
        continue;
      }
      rep.ok = false;
      rep.reason = std::string("in a ") + what + " loop over '" + loop.var + "', different iterations may " +
                   (acc[j].stmt ? "write " : "read ") + acc[j].text() + " while another writes " +
                   acc[i].text() + " (tensor '" + acc[i].tensor + "')";
      return rep;
    }
  }
  for (size_t i = 0; i < acc.size(); ++i) {
    if (!acc[i].isReduce) continue;
    auto* r = static_cast<const Reduce*>(acc[i].stmt);
    if (!racyReduces.count(i)) {
      setStrategy(rep, r, ReduceStrategy::Plain);
      continue;
    }
    // A private accumulator needs a target fixed for the whole loop and no other
    // access to it than reductions to the very same element.
    bool alone = invariant(acc[i], loop.var);
    for (auto& other : acc)
      if (&other != &acc[i] && other.tensor == acc[i].tensor &&
          !(other.isReduce && other.op == acc[i].op && sameLocation(other, acc[i])) &&
          !(invariant(other, loop.var) && provablyDistinct(other, acc[i])))
        alone = false;
    if (alone) {
      setStrategy(rep, r, ReduceStrategy::Accumulator);
    } else if (!simd) {
      setStrategy(rep, r, ReduceStrategy::Atomic);
    } else {
      rep.ok = false;
      rep.reason = "in a vectorized loop over '" + loop.var + "', SIMD lanes would update " +
                   acc[i].text() + " together: the reduction's target changes inside the loop, "
                   "so it cannot be kept in a private accumulator";
      return rep;
    }
  }
  return rep;
}

std::set<std::string> tensorsOnlyReduced(const For& loop) {
  std::vector<Access> acc;
  AccessCollector(loop.var, acc).visit(loop.body);
  std::map<std::string, std::set<int>> ops;  // -1: a read or a store
  for (auto& a : acc) ops[a.tensor].insert(a.isReduce ? static_cast<int>(a.op) : -1);
  std::set<std::string> out;
  for (auto& [tensor, o] : ops)
    if (o.size() == 1 && *o.begin() != -1) out.insert(tensor);
  return out;
}

std::set<std::string> tensorsMet(const For& loop) {
  std::vector<Access> acc;
  AccessCollector(loop.var, acc).visit(loop.body);
  std::set<std::string> out;
  for (size_t i = 0; i < acc.size(); ++i)
    for (size_t j = 0; acc[i].stmt && j < acc.size(); ++j)
      if (acc[j].tensor == acc[i].tensor && !separated(acc[i], acc[j], loop.var, loop.step > 0 ? loop.step : -loop.step))
        out.insert(acc[i].tensor);
  return out;
}

}  // namespace teml::analysis
