#include "analysis/local_box.hpp"

#include <algorithm>
#include <limits>

#include "analysis/affine.hpp"
#include "ir/mutator.hpp"
#include "ir/printer.hpp"

namespace teml::analysis {

using namespace ir;

namespace {

struct Finder {
  const std::string& tensor;
  LocalBox& box;
  std::string& why;
  std::vector<std::map<std::string, int64_t>> scopeCoeffs;  // per dimension, from the first access
  std::vector<int64_t> lo, hi;

  bool access(const std::vector<ExprP>& idx, const Ranges& inner) {
    if (!box.used) {
      box.used = true;
      scopeCoeffs.resize(idx.size());
      lo.assign(idx.size(), std::numeric_limits<int64_t>::max());
      hi.assign(idx.size(), std::numeric_limits<int64_t>::min());
    }
    for (size_t d = 0; d < idx.size(); ++d) {
      Affine a;
      std::map<std::string, int64_t> scope;
      int64_t l, h;
      if (!toAffine(idx[d], &a)) {
        // Not affine (a merged loop's j / n, j mod n): fine where only inner
        // iterators appear, bounded by interval arithmetic.
        Interval b;
        if (!bounds(idx[d], inner, &b)) {
          why = "index " + toString(idx[d]) + " of '" + tensor + "' is not affine in the loops around the local";
          return false;
        }
        a = Affine{};
        l = b.lo;
        h = b.hi;
      } else {
        l = h = a.constant;
      }
      for (auto& [v, c] : a.coeffs) {
        auto r = inner.find(v);
        if (r == inner.end()) {
          scope[v] = c;
          continue;
        }
        l += c > 0 ? c * r->second.lo : c * r->second.hi;
        h += c > 0 ? c * r->second.hi : c * r->second.lo;
      }
      if (lo[d] == std::numeric_limits<int64_t>::max()) {
        scopeCoeffs[d] = scope;
      } else if (scopeCoeffs[d] != scope) {
        why = "dimension " + std::to_string(d + 1) + " of '" + tensor +
              "' is indexed differently by the enclosing loops in different accesses (" + toString(idx[d]) + ")";
        return false;
      }
      lo[d] = std::min(lo[d], l);
      hi[d] = std::max(hi[d], h);
    }
    return true;
  }

  bool expr(const ExprP& e, const Ranges& inner) {
    bool ok = true;
    forEachExpr(e, [&](const ExprP& x) {
      if (ok && x->kind == ExprKind::Load && static_cast<const Load&>(*x).tensor == tensor)
        ok = access(static_cast<const Load&>(*x).indices, inner);
    });
    return ok;
  }

  bool stmt(const StmtP& s, const Ranges& inner) {
    switch (s->kind) {
      case StmtKind::For: {
        auto& f = static_cast<const For&>(*s);
        Interval b, e;
        if (!bounds(f.begin, inner, &b) || !bounds(f.end, inner, &e)) {
          why = "the bounds of loop '" + f.var + "' depend on a loop outside the one '" + tensor + "' is local to";
          return false;
        }
        if (e.hi - 1 < b.lo) return true;  // never runs
        Ranges r = inner;
        r[f.var] = {b.lo, e.hi - 1};
        return stmt(f.body, r);
      }
      case StmtKind::Store: {
        auto& st = static_cast<const Store&>(*s);
        if (st.tensor == tensor && !access(st.indices, inner)) return false;
        for (auto& i : st.indices)
          if (!expr(i, inner)) return false;
        return expr(st.value, inner);
      }
      case StmtKind::Reduce: {
        auto& r = static_cast<const Reduce&>(*s);
        if (r.tensor == tensor && !access(r.indices, inner)) return false;
        for (auto& i : r.indices)
          if (!expr(i, inner)) return false;
        return expr(r.value, inner);
      }
      case StmtKind::Seq:
        for (auto& t : static_cast<const Seq&>(*s).stmts)
          if (!stmt(t, inner)) return false;
        return true;
      case StmtKind::If: {
        auto& i = static_cast<const If&>(*s);
        return expr(i.cond, inner) && stmt(i.then, inner) && (!i.otherwise || stmt(i.otherwise, inner));
      }
      case StmtKind::LibCall: {
        auto& c = static_cast<const LibCall&>(*s);
        if (std::find(c.tensors.begin(), c.tensors.end(), tensor) != c.tensors.end()) {
          why = "'" + tensor + "' is passed to the library routine " + c.routine;
          return false;
        }
        return stmt(c.reference, inner);
      }
    }
    return true;
  }
};

}  // namespace

bool localBox(const For& owner, const std::string& tensor, LocalBox* out, std::string* why) {
  *out = LocalBox{};
  Finder f{tensor, *out, *why, {}, {}, {}};
  if (!f.stmt(owner.body, {})) return false;
  if (!out->used) return true;
  for (size_t d = 0; d < f.lo.size(); ++d) {
    ExprP off = intConst(f.lo[d]);
    for (auto& [v, c] : f.scopeCoeffs[d]) off = add(mul(intConst(c), var(v)), off);
    out->offset.push_back(off);
    out->extent.push_back(f.hi[d] - f.lo[d] + 1);
  }
  return true;
}

}  // namespace teml::analysis
