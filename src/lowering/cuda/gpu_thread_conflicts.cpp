#include "lowering/cuda/gpu_thread_conflicts.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "ir/accesses.hpp"
#include "ir/affine.hpp"
#include "ir/mutator.hpp"
#include "ir/visitor.hpp"
#include "lowering/cuda/cuda_passes.hpp"

namespace teml::lowering {

using namespace ir;

bool isGuardLoop(const For* f) {
  int64_t b = -1, e = -1;
  return f->loopKind.gpuThreads() && constValue(f->begin, &b) && constValue(f->end, &e) && b == 0 && e == 1;
}
bool isGuard(const StmtP& s) { return s->kind == StmtKind::For && isGuardLoop(&s->as<For>()); }

namespace {

// The thread loops around each statement of `s` (outermost first), and
// every iterator of a loop in `s` that is not a thread loop's.
struct ThreadsOf {
  std::map<const Stmt*, std::vector<const For*>> around;
  std::set<std::string> serial;
};
ThreadsOf threadsOf(const StmtP& s) {
  struct Walk : Visitor {
    ThreadsOf out;
    std::vector<const For*> stack;
    using Visitor::visit;
    void visit(const ExprP&) override {}
    void visit(const StmtP& t) override {
      out.around[t.get()] = stack;
      Visitor::visit(t);
    }
    void visitFor(const For& f) override {
      bool threads = f.loopKind.gpuThreads();
      if (threads) stack.push_back(&f);
      else out.serial.insert(f.var);
      Visitor::visitFor(f);
      if (threads) stack.pop_back();
    }
  } walk;
  walk.visit(s);
  return walk.out;
}

// The integer value of `e` with `name` at `value`, where nothing else
// varies in it (constants, + - * // %, min, max); nothing otherwise.
std::optional<int64_t> valueAt(const ExprP& e, const std::string& name, int64_t value) {
  int64_t c = 0;
  if (constValue(e, &c)) return c;
  if (e->kind == ExprKind::Var) return e->as<Var>().name == name ? std::optional<int64_t>(value) : std::nullopt;
  if (e->kind == ExprKind::Cast) return valueAt(e->as<Cast>().a, name, value);
  if (e->kind != ExprKind::Binary) return std::nullopt;
  auto& b = e->as<Binary>();
  auto x = valueAt(b.a, name, value), y = valueAt(b.b, name, value);
  if (!x || !y) return std::nullopt;
  switch (b.op) {
    case BinOp::Add: return *x + *y;
    case BinOp::Sub: return *x - *y;
    case BinOp::Mul: return *x * *y;
    case BinOp::Min: return std::min(*x, *y);
    case BinOp::Max: return std::max(*x, *y);
    case BinOp::FloorDiv:
    case BinOp::Mod: {
      if (*y == 0) return std::nullopt;
      int64_t q = *x / *y;
      if (*x % *y != 0 && ((*x < 0) != (*y < 0))) --q;
      return b.op == BinOp::FloorDiv ? q : *x - q * *y;
    }
    default: return std::nullopt;
  }
}

// The same subscript of the thread loop `f`'s iterator alone in both
// accesses, giving each of its iterations another element (found by
// trying them all: `(i + 1) % 10` over 10 threads).
bool sameOneToOneSubscript(const ExprP& x, const ExprP& y, const For& f) {
  int64_t b = 0, e = 0;
  if (!equal(x, y) || !constValue(f.begin, &b) || !constValue(f.end, &e) || f.step <= 0 || e - b > 4096) return false;
  std::set<int64_t> seen;
  for (int64_t t = b; t < e; t += f.step) {
    auto v = valueAt(x, f.var, t);
    if (!v || !seen.insert(*v).second) return false;
  }
  return !seen.empty();
}

// Both accesses are inside loops over the same thread indices (same
// ranges), and for each index some subscript is the same affine function
// of it in both, using no other thread index: c * thread + the same terms
// in what is fixed + terms in iterators that vary between threads or
// between the two, each a multiple of c times the loop's thread count
// (lane + 32 * chunk: two lanes never meet). An element both reach is
// then reached by one thread.
bool sameThread(const ThreadsOf& ta, const ThreadsOf& tb, const Access& x, const Access& y,
                const std::string& varying) {
  auto ix = ta.around.find(x.stmt), iy = tb.around.find(y.stmt);
  if (ix == ta.around.end() || iy == tb.around.end()) return false;
  const auto &lx = ix->second, &ly = iy->second;
  if (lx.empty() || lx.size() != ly.size()) return false;
  if (std::all_of(lx.begin(), lx.end(), isGuardLoop) && std::all_of(ly.begin(), ly.end(), isGuardLoop)) {
    bool sameScopes = true;  // guards over the same thread indices: both in thread 0
    for (size_t k = 0; k < lx.size(); ++k) sameScopes = sameScopes && lx[k]->loopKind.scope == ly[k]->loopKind.scope;
    if (sameScopes) return true;
  }
  if (x.indices.size() != y.indices.size()) return false;
  std::map<std::string, ExprP> rename;
  std::set<std::string> threadVars;
  for (size_t k = 0; k < lx.size(); ++k) {
    const For &f = *lx[k], &g = *ly[k];
    if (f.loopKind.scope != g.loopKind.scope || f.step != g.step || !equal(f.begin, g.begin) || !equal(f.end, g.end))
      return false;
    if (!varying.empty() && (usesVar(f.begin, varying) || usesVar(f.end, varying)))
      return false;  // the same bounds, of different values in the two
    rename[g.var] = var(f.var);
    threadVars.insert(f.var);
  }
  std::set<std::string> varies = ta.serial;
  varies.insert(tb.serial.begin(), tb.serial.end());
  if (!varying.empty()) varies.insert(varying);
  for (const For* f : lx) {
    bool counted = false;
    int64_t threads = mostIterations(*f, &counted);
    bool determined = false;
    for (size_t d = 0; d < x.indices.size() && !determined; ++d) {
      if (sameOneToOneSubscript(x.indices[d], substitute(y.indices[d], rename), *f)) {
        determined = true;
        break;
      }
      Affine ax, ay;
      if (!toAffine(x.indices[d], &ax) || !toAffine(substitute(y.indices[d], rename), &ay)) continue;
      int64_t c = ax.coeff(f->var);
      if (c == 0 || ay.coeff(f->var) != c) continue;
      int64_t period = counted && f->step == 1 ? std::abs(c) * threads : 0;  // 0: nothing may vary
      auto apartByPeriods = [&](int64_t k) { return period ? k % period == 0 : k == 0; };
      std::set<std::string> names;
      for (auto* a : {&ax, &ay})
        for (auto& [w, k] : a->coeffs) names.insert(w);
      bool clean = apartByPeriods(ax.constant - ay.constant);
      for (auto& w : names) {
        if (w == f->var) continue;
        int64_t kx = ax.coeff(w), ky = ay.coeff(w);
        if (threadVars.count(w)) clean = clean && kx == 0 && ky == 0;
        else if (varies.count(w)) clean = clean && apartByPeriods(kx) && apartByPeriods(ky);
        else clean = clean && kx == ky;
      }
      determined = clean;
    }
    if (!determined) return false;
  }
  return true;
}

}  // namespace

bool threadsMayMeet(const StmtP& a, const StmtP& b, const std::set<std::string>& ownTensors, const std::string& varying) {
  if (a->kind == StmtKind::Barrier || b->kind == StmtKind::Barrier) return false;
  if (isGuard(a) && isGuard(b)) return false;  // both in thread 0
  ThreadsOf ta = threadsOf(a), tb = threadsOf(b);
  for (auto& x : accessesOf(a))
    for (auto& y : accessesOf(b)) {
      if (x.tensor != y.tensor || ownTensors.count(x.tensor)) continue;
      if (x.kind == AccessKind::Read && y.kind == AccessKind::Read) continue;
      if (x.kind == AccessKind::Reduce && y.kind == AccessKind::Reduce && x.op == y.op &&
          x.stmt->as<Reduce>().atomic && y.stmt->as<Reduce>().atomic)
        continue;
      if (!sameThread(ta, tb, x, y, varying)) return true;
    }
  return false;
}

bool warpsMayMeet(const StmtP& a, const StmtP& b, const std::set<std::string>& ownTensors,
                  const std::set<std::string>& definedInside, const std::string& warpLoop) {
  ThreadsOf ta = threadsOf(a), tb = threadsOf(b);
  std::set<std::string> varies = ta.serial;
  varies.insert(tb.serial.begin(), tb.serial.end());
  for (auto& t : {&ta, &tb})
    for (auto& [stmt, loops] : t->around)
      for (const For* l : loops) varies.insert(l->var);
  for (auto& x : accessesOf(a))
    for (auto& y : accessesOf(b)) {
      if (x.tensor != y.tensor || ownTensors.count(x.tensor) || !definedInside.count(x.tensor)) continue;
      if (x.kind == AccessKind::Read && y.kind == AccessKind::Read) continue;
      bool apart = false;  // a subscript that differs between warps
      for (size_t d = 0; d < x.indices.size() && d < y.indices.size() && !apart; ++d) {
        Affine ax, ay;
        if (!toAffine(x.indices[d], &ax) || !toAffine(y.indices[d], &ay)) continue;
        bool clean = ax.coeffs == ay.coeffs && ax.constant == ay.constant && ax.coeff(warpLoop) != 0;
        for (auto& [w, c] : ax.coeffs) clean = clean && !varies.count(w);
        apart = clean;
      }
      if (!apart) return true;
    }
  return false;
}

}  // namespace teml::lowering
