#include "analysis/concurrency.hpp"

#include <functional>
#include <set>
#include <vector>

#include "analysis/affine.hpp"
#include "ir/mutator.hpp"
#include "ir/printer.hpp"

namespace teml::analysis {

using namespace ir;

namespace {

struct Access {
  std::string tensor;
  std::vector<ExprP> indices;
  std::set<std::string> innerVars;  // iterators of loops inside the analyzed loop
  const Stmt* stmt = nullptr;       // the Store/Reduce writing, or null for a read
  bool isReduce = false;
  ReduceOp op = ReduceOp::Add;
  std::string text() const {
    std::string s = tensor;
    for (auto& i : indices) s += "[" + toString(i) + "]";
    return s;
  }
};

bool mentionsAny(const Affine& a, const std::set<std::string>& vars) {
  for (auto& [v, c] : a.coeffs)
    if (vars.count(v)) return true;
  return false;
}

// Inner loops whose iterations for different values of the analyzed iterator
// `v` are disjoint blocks: begin = a*v + rest, end <= begin + a (strip-mining).
using BlockVars = std::map<std::string, int64_t>;  // iterator -> a

bool isBlockLoop(const For& f, const std::string& v, const std::set<std::string>& inner, int64_t* a) {
  Affine b;
  if (!toAffine(f.begin, &b) || b.coeff(v) <= 0 || mentionsAny(b, inner)) return false;
  *a = b.coeff(v);
  ExprP limit = add(f.begin, intConst(*a));
  if (equal(f.end, limit)) return true;
  if (f.end->kind == ExprKind::Binary) {
    auto& m = static_cast<const Binary&>(*f.end);
    return m.op == BinOp::Min && (equal(m.a, limit) || equal(m.b, limit));
  }
  return false;
}

void collect(const StmtP& s, std::set<std::string>& inner, std::vector<Access>& out,
             const std::string& v, BlockVars& blocks) {
  auto addReads = [&](const ExprP& e) {
    forEachExpr(e, [&](const ExprP& x) {
      if (x->kind == ExprKind::Load) {
        auto& l = static_cast<const Load&>(*x);
        out.push_back(Access{l.tensor, l.indices, inner});
      }
    });
  };
  switch (s->kind) {
    case StmtKind::For: {
      auto& f = static_cast<const For&>(*s);
      int64_t a;
      if (isBlockLoop(f, v, inner, &a)) blocks[f.var] = a;
      inner.insert(f.var);
      collect(f.body, inner, out, v, blocks);
      inner.erase(f.var);
      break;
    }
    case StmtKind::Store: {
      auto& st = static_cast<const Store&>(*s);
      for (auto& i : st.indices) addReads(i);
      addReads(st.value);
      out.push_back(Access{st.tensor, st.indices, inner, s.get()});
      break;
    }
    case StmtKind::Reduce: {
      auto& r = static_cast<const Reduce&>(*s);
      for (auto& i : r.indices) addReads(i);
      addReads(r.value);
      out.push_back(Access{r.tensor, r.indices, inner, s.get(), true, r.op});
      break;
    }
    case StmtKind::Seq:
      for (auto& t : static_cast<const Seq&>(*s).stmts) collect(t, inner, out, v, blocks);
      break;
    case StmtKind::If: {
      auto& i = static_cast<const If&>(*s);
      addReads(i.cond);
      collect(i.then, inner, out, v, blocks);
      if (i.otherwise) collect(i.otherwise, inner, out, v, blocks);
      break;
    }
  }
}

// True when accesses x and y, made in two different iterations of the loop over
// `v` with step `step`, can never touch the same element.
bool separated(const Access& x, const Access& y, const std::string& v, int64_t step, const BlockVars& blocks) {
  if (x.indices.size() != y.indices.size()) return false;
  for (size_t d = 0; d < x.indices.size(); ++d) {
    Affine a, b;
    if (!toAffine(x.indices[d], &a) || !toAffine(y.indices[d], &b)) continue;
    // Indexed by the same block iterator at the same offset: iterations of v
    // touch disjoint blocks.
    for (auto& [w, size] : blocks) {
      int64_t c = a.coeff(w);
      if (c == 0 || b.coeff(w) != c || a.constant != b.constant || a.coeff(v) != 0 || b.coeff(v) != 0) continue;
      Affine ra = a, rb = b;
      ra.coeffs.erase(w);
      rb.coeffs.erase(w);
      if (ra.coeffs == rb.coeffs && !mentionsAny(ra, x.innerVars) && !mentionsAny(rb, y.innerVars)) return true;
    }
    int64_t c = a.coeff(v);
    if (c == 0 || b.coeff(v) != c) continue;
    if (mentionsAny(a, x.innerVars) || mentionsAny(b, y.innerVars)) continue;
    Affine ra = a, rb = b;
    ra.coeffs.erase(v);
    rb.coeffs.erase(v);
    if (ra.coeffs != rb.coeffs) continue;
    // c*v + ka == c*v' + kb with v - v' a nonzero multiple of step.
    int64_t delta = b.constant - a.constant, period = c * step;
    if (delta == 0 || delta % period != 0) return true;
  }
  return false;
}

bool invariant(const Access& x, const std::string& v) {
  for (auto& i : x.indices) {
    if (usesVar(i, v)) return false;
    for (auto& w : x.innerVars)
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

}  // namespace

ConcurrencyReport analyzeConcurrentLoop(const For& loop, bool simd) {
  ConcurrencyReport rep;
  std::vector<Access> acc;
  std::set<std::string> inner;
  BlockVars blocks;
  collect(loop.body, inner, acc, loop.var, blocks);
  const char* what = simd ? "vectorized" : "parallel";
  std::set<size_t> racyReduces;
  for (size_t i = 0; i < acc.size(); ++i) {
    if (!acc[i].stmt) continue;  // pairs start from a write
    for (size_t j = 0; j < acc.size(); ++j) {
      if (acc[j].tensor != acc[i].tensor) continue;
      if (j < i && acc[j].stmt) continue;  // write pairs are seen once
      if (separated(acc[i], acc[j], loop.var, loop.step, blocks)) continue;
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
      rep.reduces[r] = ReduceStrategy::Plain;
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
      rep.reduces[r] = ReduceStrategy::Accumulator;
    } else if (!simd) {
      rep.reduces[r] = ReduceStrategy::Atomic;
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

}  // namespace teml::analysis
