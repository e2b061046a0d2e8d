#include "analysis/local_box.hpp"

#include <algorithm>
#include <limits>
#include <optional>

#include "ir/affine.hpp"
#include "ir/accesses.hpp"
#include "ir/functor.hpp"
#include "ir/mutator.hpp"
#include "ir/printer.hpp"

namespace teml::analysis {

using namespace ir;

namespace {

// A value as (affine part in the iterators around the local's loop) +
// (an interval contributed by the loops inside it).
struct Span {
  std::map<std::string, int64_t> scope;
  Interval rest{0, 0};
};

using Inner = std::map<std::string, Span>;

class Finder : StmtFunctor<bool(const Inner&)> {
 public:
  Finder(const std::string& tensor, LocalBox& box, std::string& why) : tensor_(tensor), box_(box), why_(why) {}

  bool stmt(const StmtP& s, const Inner& inner) { return dispatch(s, inner); }

  void finish() {
    for (size_t d = 0; d < lo_.size(); ++d) {
      ExprP off = intConst(lo_[d]);
      for (auto& [v, c] : scope_[d]) off = add(mul(intConst(c), var(v)), off);
      box_.offset.push_back(off);
      box_.extent.push_back(hi_[d] - lo_[d] + 1);
    }
  }

 private:
  bool visitFor(const For& f, const Inner& inner) override {
    if (f.step < 0) {
      why_ = "loop '" + f.var + "' counts down; local boxes are inferred for loops that count up";
      return false;
    }
    Span range;
    if (!loopRange(f, inner, &range)) {
      // A loop whose iterator never indexes the tensor (a CSR row's edges
      // summed into a local row) leaves the box as its body makes it.
      if (!indexesTensor(f)) return stmt(f.body, inner);
      why_ = "the bounds of loop '" + f.var + "' (" + toString(f.begin) + " to " + toString(f.end) +
             ") do not give it a fixed number of values per iteration of the loop '" + tensor_ + "' is local to";
      return false;
    }
    if (range.rest.hi < range.rest.lo) return true;  // never runs
    auto r = inner;
    r[f.var] = range;
    return stmt(f.body, r);
  }
  bool indexesTensor(const For& f) const {
    for (auto& a : accessesOf(f.body))
      if (a.tensor == tensor_)
        for (auto& i : a.indices)
          if (usesVar(i, f.var)) return true;
    return false;
  }
  bool visitStore(const Store& st, const Inner& inner) override {
    if (st.tensor == tensor_ && !access(st.indices, inner)) return false;
    return exprs(st.indices, inner) && expr(st.value, inner);
  }
  bool visitReduce(const Reduce& r, const Inner& inner) override {
    if (r.tensor == tensor_ && !access(r.indices, inner)) return false;
    return exprs(r.indices, inner) && expr(r.value, inner);
  }
  bool visitSeq(const Seq& q, const Inner& inner) override {
    for (auto& t : q.stmts)
      if (!stmt(t, inner)) return false;
    return true;
  }
  bool visitIf(const If& i, const Inner& inner) override {
    return expr(i.cond, inner) && stmt(i.then, inner) && (!i.otherwise || stmt(i.otherwise, inner));
  }
  bool visitVarDef(const VarDef& v, const Inner& inner) override { return stmt(v.body, inner); }
  bool visitBarrier(const Barrier&, const Inner&) override { return true; }
  bool visitExchange(const Exchange&, const Inner&) override { return true; }
  bool visitAssert(const Assert& a, const Inner& inner) override {
    return expr(a.cond, inner) && (!a.shown || expr(a.shown, inner)) && stmt(a.body, inner);
  }
  bool visitLibCall(const LibCall& c, const Inner& inner) override {
    if (std::find(c.tensors.begin(), c.tensors.end(), tensor_) != c.tensors.end()) {
      why_ = "'" + tensor_ + "' is passed to the library routine " + c.routine;
      return false;
    }
    return stmt(c.reference, inner);
  }

  // e as a Span, when it is affine (or uses only inner iterators whose
  // ranges do not move with the outer ones).
  static bool spanOf(const ExprP& e, const std::map<std::string, Span>& inner, Span* out) {
    Affine a;
    if (!toAffine(e, &a)) {
      Ranges plain;
      for (auto& [v, s] : inner)
        if (s.scope.empty()) plain[v] = s.rest;
      *out = Span{};
      return bounds(e, plain, &out->rest);
    }
    Span s;
    s.rest = {a.constant, a.constant};
    for (auto& [v, c] : a.coeffs) {
      auto it = inner.find(v);
      if (it == inner.end()) {
        s.scope[v] += c;
        continue;
      }
      for (auto& [w, k] : it->second.scope) s.scope[w] += c * k;
      const Interval& r = it->second.rest;
      s.rest.lo += c > 0 ? c * r.lo : c * r.hi;
      s.rest.hi += c > 0 ? c * r.hi : c * r.lo;
    }
    std::erase_if(s.scope, [](const auto& kv) { return kv.second == 0; });
    *out = s;
    return true;
  }

  // The arguments of nested min(...) (or max(...)) in e, e itself included.
  static std::vector<ExprP> candidates(const ExprP& e, BinOp op) {
    std::vector<ExprP> out = {e};
    for (size_t k = 0; k < out.size(); ++k) {
      ExprP x = out[k];  // a copy: push_back may move the vector
      if (x->kind == ExprKind::Binary && x->as<Binary>().op == op) {
        out.push_back(x->as<Binary>().a);
        out.push_back(x->as<Binary>().b);
      }
    }
    return out;
  }

  // A bound of e (upper: its largest value, else its smallest) that holds
  // whatever the iterators around the local's loop are, found where their
  // terms cancel: a min or max is opened by adding the affine term beside it
  // to every argument, so the end of a strip-mined block, min(c*v + b, N) - c*v,
  // is bounded by b.
  static std::optional<int64_t> cancellingBound(const ExprP& e, const Ranges& plain, bool upper) {
    Affine a;
    if (toAffine(e, &a)) {
      Interval iv;
      if (!bounds(e, plain, &iv)) return std::nullopt;
      return upper ? iv.hi : iv.lo;
    }
    if (e->kind != ExprKind::Binary) return std::nullopt;
    auto& b = e->as<Binary>();
    auto minMax = [](const ExprP& x) {
      return x->kind == ExprKind::Binary &&
             (x->as<Binary>().op == BinOp::Min || x->as<Binary>().op == BinOp::Max);
    };
    switch (b.op) {
      case BinOp::Min:
      case BinOp::Max: {
        auto x = cancellingBound(b.a, plain, upper), y = cancellingBound(b.b, plain, upper);
        bool oneSuffices = (b.op == BinOp::Min) == upper;  // min(x, y) <= x: either argument bounds it above
        if (oneSuffices) {
          if (x && y) return upper ? std::min(*x, *y) : std::max(*x, *y);
          return x ? x : y;
        }
        if (!x || !y) return std::nullopt;
        return upper ? std::max(*x, *y) : std::min(*x, *y);
      }
      case BinOp::Add:
      case BinOp::Sub: {
        if (minMax(b.a)) {  // min(p, q) +- r = min(p +- r, q +- r)
          auto& m = b.a->as<Binary>();
          return cancellingBound(binary(m.op, binary(b.op, m.a, b.b), binary(b.op, m.b, b.b)), plain, upper);
        }
        if (minMax(b.b)) {  // r + min(p, q) = min(r + p, r + q); r - min(p, q) = max(r - p, r - q)
          auto& m = b.b->as<Binary>();
          BinOp op = b.op == BinOp::Add ? m.op : (m.op == BinOp::Min ? BinOp::Max : BinOp::Min);
          return cancellingBound(binary(op, binary(b.op, b.a, m.a), binary(b.op, b.a, m.b)), plain, upper);
        }
        auto x = cancellingBound(b.a, plain, upper);
        auto y = cancellingBound(b.b, plain, b.op == BinOp::Add ? upper : !upper);
        if (!x || !y) return std::nullopt;
        return b.op == BinOp::Add ? *x + *y : *x - *y;
      }
      case BinOp::FloorDiv: {
        Affine k;
        if (!toAffine(b.b, &k) || !k.coeffs.empty() || k.constant <= 0) return std::nullopt;
        auto x = cancellingBound(b.a, plain, upper);
        if (!x) return std::nullopt;
        return *x >= 0 ? *x / k.constant : -((-*x + k.constant - 1) / k.constant);
      }
      default: return std::nullopt;
    }
  }

  // [begin, end) as a Span: begin may be a max(...) and end a min(...) of
  // which one argument each moves with the outer iterators in the same way
  // (a strip-mined inner loop, a copy loop clamped to a tensor's bounds).
  static bool loopRange(const For& f, const std::map<std::string, Span>& inner, Span* out) {
    bool found = false;
    for (auto& b : candidates(f.begin, BinOp::Max)) {
      Span sb;
      if (!spanOf(b, inner, &sb)) continue;
      for (auto& e : candidates(f.end, BinOp::Min)) {
        Span se;
        if (!spanOf(e, inner, &se) || se.scope != sb.scope) continue;
        Span r{sb.scope, {sb.rest.lo, se.rest.hi - 1}};
        // A range that moves with the outer iterators beats a fixed one even
        // when the fixed one is narrower (a tensor smaller than one block):
        // the loop's accesses must move the same way as those of the body.
        bool better = !found || (r.scope.empty() == out->scope.empty()
                                     ? r.rest.hi - r.rest.lo < out->rest.hi - out->rest.lo
                                     : !r.scope.empty());
        if (better) *out = r;
        found = true;
      }
    }
    if (found) return true;
    // Otherwise a range that holds for every iteration around: the box then
    // covers the largest of the loop's ranges (the full blocks of a loop
    // strip-mined twice, when the last block is partial).
    Ranges plain;
    for (auto& [v, s] : inner)
      if (s.scope.empty()) plain[v] = s.rest;
    auto lo = cancellingBound(f.begin, plain, false), hi = cancellingBound(f.end, plain, true);
    if (!lo || !hi) return false;
    *out = Span{{}, {*lo, *hi - 1}};
    return true;
  }

  bool access(const std::vector<ExprP>& idx, const std::map<std::string, Span>& inner) {
    if (!box_.used) {
      box_.used = true;
      scope_.resize(idx.size());
      lo_.assign(idx.size(), std::numeric_limits<int64_t>::max());
      hi_.assign(idx.size(), std::numeric_limits<int64_t>::min());
    }
    for (size_t d = 0; d < idx.size(); ++d) {
      Span s;
      if (!spanOf(idx[d], inner, &s)) {
        why_ = "index " + toString(idx[d]) + " of '" + tensor_ + "' is not affine in the loops around the local";
        return false;
      }
      if (lo_[d] == std::numeric_limits<int64_t>::max()) {
        scope_[d] = s.scope;
      } else if (scope_[d] != s.scope) {
        why_ = "dimension " + std::to_string(d + 1) + " of '" + tensor_ +
               "' is indexed differently by the enclosing loops in different accesses (" + toString(idx[d]) + ")";
        return false;
      }
      lo_[d] = std::min(lo_[d], s.rest.lo);
      hi_[d] = std::max(hi_[d], s.rest.hi);
    }
    return true;
  }

  bool exprs(const std::vector<ExprP>& es, const std::map<std::string, Span>& inner) {
    for (auto& e : es)
      if (!expr(e, inner)) return false;
    return true;
  }

  bool expr(const ExprP& e, const std::map<std::string, Span>& inner) {
    for (auto& r : readsOf(e))
      if (r.tensor == tensor_ && !access(r.indices, inner)) return false;
    return true;
  }

  const std::string& tensor_;
  LocalBox& box_;
  std::string& why_;
  std::vector<std::map<std::string, int64_t>> scope_;  // per dimension, from the first access
  std::vector<int64_t> lo_, hi_;
};

}  // namespace

bool localBox(const StmtP& scope, const std::string& tensor, LocalBox* out, std::string* why) {
  *out = LocalBox{};
  Finder f(tensor, *out, *why);
  if (!f.stmt(scope, {})) return false;
  if (out->used) f.finish();
  return true;
}

}  // namespace teml::analysis
