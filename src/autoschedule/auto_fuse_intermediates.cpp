#include "autoschedule/auto_fuse_intermediates.hpp"

#include <map>
#include <optional>
#include <set>

#include "autoschedule/loop_queries.hpp"
#include "ir/affine.hpp"
#include "ir/mutator.hpp"
#include "schedule/loop_target.hpp"

namespace teml::autoschedule {

using namespace ir;

namespace {

// Plans carried out in one nest at most, and statements in the loops of
// one plan at most: each plan costs dependence checks, and isl gave up on
// a fusion of two loops of a gradient with 30 statements after 8 s.
constexpr int kMostPlans = 16;
constexpr int kMostStatements = 16;
// A tensor of this many elements or more (256 KiB of floats, half of a
// core's L2 or less) that a loop of a plan sums into across the fused
// iterator (a weight's gradient, `w.grad[k, j] += y.grad[i, j] * x[i, k]`
// fused over i) is left unfused: the fused loop, on threads, would keep a
// copy of it per thread and update all of it once an iteration, out of L2,
// where its own nest sums it as a product. A smaller one stays in L2 (a
// bias's gradient; attention's v.grad at 256 x 64, whose rows fused with
// the softmax's ran its gradient in 1.9 ms, apart in 3.5 ms).
constexpr int64_t kMostElementsSummedAcross = 65536;

int statementsIn(const StmtP& s) {
  int n = 0;
  forEachStmt(s, [&](const StmtP& x) { n += x->kind == StmtKind::Store || x->kind == StmtKind::Reduce; });
  return n;
}

bool sameRange(const For& a, const For& b) {
  int64_t ab, ae, bb, be;
  return a.step == 1 && b.step == 1 && constValue(a.begin, &ab) && constValue(a.end, &ae) &&
         constValue(b.begin, &bb) && constValue(b.end, &be) && ab == bb && ae == be && ae - ab > 1;
}

// Runs of two or more neighbouring loops, not on threads or lanes, in the
// sequences of `body`: their ids.
std::vector<std::vector<std::string>> runsOfLoops(const StmtP& body) {
  std::vector<std::vector<std::string>> runs;
  forEachStmt(body, [&](const StmtP& s) {
    if (s->kind != StmtKind::Seq) return;
    std::vector<std::string> run;
    for (auto& item : s->as<Seq>().stmts) {
      if (item->kind == StmtKind::For && !item->as<For>().loopKind.concurrent()) {
        run.push_back(item->id);
        continue;
      }
      if (run.size() >= 2) runs.push_back(run);
      run.clear();
    }
    if (run.size() >= 2) runs.push_back(run);
  });
  return runs;
}

// The loop with this id (the passes' ids always name one).
StmtP loopIn(const StmtP& body, const std::string& id) { return schedule::findLoop(body, id, "fuse"); }

// The indices of every access of tensor t in s.
std::vector<std::vector<ExprP>> accessesOf(const StmtP& s, const std::string& t) {
  std::vector<std::vector<ExprP>> out;
  forEachStmt(s, [&](const StmtP& x) {
    if (x->kind == StmtKind::Store && x->as<Store>().tensor == t) out.push_back(x->as<Store>().indices);
    if (x->kind == StmtKind::Reduce && x->as<Reduce>().tensor == t) out.push_back(x->as<Reduce>().indices);
  });
  forEachExprIn(s, [&](const ExprP& e) {
    if (e->kind == ExprKind::Load && e->as<Load>().tensor == t) out.push_back(e->as<Load>().indices);
  });
  return out;
}

std::set<std::string> definedTensors(const StmtP& body) {
  std::set<std::string> defined;
  forEachStmt(body, [&](const StmtP& s) {
    if (s->kind == StmtKind::VarDef) defined.insert(s->as<VarDef>().decl.name);
  });
  return defined;
}

// Accesses in `loop` that walk memory with a stride other than one element
// along iterator v: v in a dimension before the last, or in the last with a
// coefficient other than 1 (or not affine there).
int stridedAlong(const StmtP& loop, const std::string& v) {
  std::vector<std::vector<ExprP>> all;
  forEachStmt(loop, [&](const StmtP& x) {
    if (x->kind == StmtKind::Store) all.push_back(x->as<Store>().indices);
    if (x->kind == StmtKind::Reduce) all.push_back(x->as<Reduce>().indices);
  });
  forEachExprIn(loop, [&](const ExprP& e) {
    if (e->kind == ExprKind::Load) all.push_back(e->as<Load>().indices);
  });
  int strided = 0;
  for (auto& idx : all) {
    bool bad = false;
    for (size_t d = 0; d < idx.size() && !bad; ++d) {
      if (!usesVar(idx[d], v)) continue;
      Affine a;
      bad = d + 1 < idx.size() || !toAffine(idx[d], &a) || a.coeff(v) != 1;
    }
    strided += bad;
  }
  return strided;
}

// What to fuse: the loops of a run from one on, each with the loop of its
// perfect nest to move outermost and fuse over, for the tensor to shrink.
struct Plan {
  std::string tensor;
  std::vector<std::string> runLoops, fuseOver;
};

class Fuser {
 public:
  explicit Fuser(AutoState& state) : state_(state) {}

  // A plan for the run's loops from position p on, decided without a
  // dependence check: a tensor the nest defines, written by the loop at p
  // and used by no statement after the run's loops, indexed in dimension d
  // by one loop's iterator in every access of each loop that uses it; every
  // loop up to the last that uses it has a loop of that range to fuse over.
  std::optional<Plan> planFrom(const std::vector<std::string>& run, size_t p) const {
    StmtP outside = state_.body;
    for (size_t q = p; q < run.size(); ++q)
      outside = schedule::replaceStmt(outside, loopIn(outside, run[q]), makeSeq({}));
    auto usedOutside = tensorsAccessed(outside);
    auto defined = definedTensors(state_.body);
    for (auto& t : tensorsWritten(loopIn(state_.body, run[p]))) {
      if (!defined.count(t) || usedOutside.count(t) || tried_.count(run[p] + "/" + t)) continue;
      size_t last = p;
      for (size_t q = p; q < run.size(); ++q)
        if (!accessesOf(loopIn(state_.body, run[q]), t).empty()) last = q;
      if (last == p) continue;
      size_t rank = accessesOf(loopIn(state_.body, run[p]), t).front().size();
      for (size_t d = 0; d < rank; ++d)
        if (auto plan = planOver(run, p, last, t, d)) return plan;
    }
    return std::nullopt;
  }

  // Carries the plan out; false, with every step taken back, when a step is
  // refused, the tensor does not become local, or the fused loop could no
  // longer run on threads.
  bool carryOut(const std::vector<std::string>& run, const Plan& plan) {
    tried_.insert(run.front() + "/" + plan.tensor);
    ++plans_;
    AutoState::Saved before = state_.save();
    bool ok = true;
    for (size_t q = 0; ok && q < plan.runLoops.size(); ++q) ok = bringOut(plan.runLoops[q], plan.fuseOver[q]);
    const std::string& fused = plan.fuseOver.front();
    for (size_t q = 1; ok && q < plan.fuseOver.size(); ++q) ok = state_.tryStep({"fuse", {fused, plan.fuseOver[q]}});
    ok = ok && madeLocal(fused, plan.tensor) && runsOnThreads(fused);
    if (!ok) state_.restore(before);
    return ok;
  }

  bool spent() const { return plans_ >= kMostPlans; }

 private:
  std::optional<Plan> planOver(const std::vector<std::string>& run, size_t p, size_t last, const std::string& t,
                               size_t d) const {
    Plan plan{t, {}, {}};
    const For* range = nullptr;
    int statements = 0;
    for (size_t q = p; q <= last; ++q) {
      statements += statementsIn(loopIn(state_.body, run[q]));
      if (statements > kMostStatements) return std::nullopt;
      std::string over = accessesOf(loopIn(state_.body, run[q]), t).empty()
                             ? loopOfRange(run[q], range)
                             : loopIndexing(run[q], t, d);
      if (over.empty()) return std::nullopt;
      const For* f = loopWithId(state_.body, over);
      if (range ? !sameRange(*range, *f) : !sameRange(*f, *f)) return std::nullopt;
      if (!keepsInnermostContiguous(run[q], over)) return std::nullopt;
      range = f;
      plan.runLoops.push_back(run[q]);
      plan.fuseOver.push_back(over);
    }
    if (!elementwise(plan) || sumsLargeTensorsAcross(plan) || contractsOver(plan)) return std::nullopt;
    return plan;
  }

  // The first loop of the plan computes its tensor as a contraction whose
  // other operand (kMostElementsSummedAcross elements or more: not in L2)
  // every iteration of the fused loop reads again: `y[i, j]
  // += x[i, k] * w[k, j]`, fused over i with `out[i, j] = relu(y[i, j] +
  // b[j])`, would keep a row of y but run the product a row at a time,
  // without the blocks of rows that reuse w from registers and cache (an
  // MLP layer's 512 x 256 x 384 product: 2.0 ms fused, 1.1 ms as a product
  // of its own). A reduction whose terms the fused iterator indexes (a
  // row's maximum, softmax's sum) does not stop a fusion.
  bool contractsOver(const Plan& plan) const {
    const std::string& var = loopWithId(state_.body, plan.fuseOver.front())->var;
    bool contraction = false;
    forEachStmt(loopIn(state_.body, plan.runLoops.front()), [&](const StmtP& x) {
      if (x->kind != StmtKind::Reduce || x->as<Reduce>().tensor != plan.tensor) return;
      forEachExpr(x->as<Reduce>().value, [&](const ExprP& e) {
        if (e->kind != ExprKind::Load) return;
        bool indexed = false;
        for (auto& i : e->as<Load>().indices) indexed = indexed || usesVar(i, var);
        contraction = contraction || (!indexed && large(e->as<Load>().tensor));
      });
    });
    return contraction;
  }

  // Some loop of the plan reduces into a tensor of kMostElementsSummedAcross
  // elements or more that its fused iterator does not index.
  bool sumsLargeTensorsAcross(const Plan& plan) const {
    for (size_t q = 0; q < plan.runLoops.size(); ++q) {
      const std::string& var = loopWithId(state_.body, plan.fuseOver[q])->var;
      bool sums = false;
      forEachStmt(loopIn(state_.body, plan.runLoops[q]), [&](const StmtP& x) {
        if (x->kind != StmtKind::Reduce) return;
        auto& r = x->as<Reduce>();
        bool indexed = false;
        for (auto& e : r.indices) indexed = indexed || usesVar(e, var);
        sums = sums || (!indexed && large(r.tensor));
      });
      if (sums) return true;
    }
    return false;
  }

  // kMostElementsSummedAcross elements or more (not known: as large as any).
  bool large(const std::string& t) const {
    return state_.elementCount(t).value_or(INT64_MAX) >= kMostElementsSummedAcross;
  }

  // Every tensor one loop of the plan writes and another uses is indexed,
  // in some dimension of every access, by the iterator fused over: row i
  // of the fused loop then reads what row i wrote. Otherwise (GAT's
  // projection, then gathers h[idx[p]] of other rows) the fusion is all
  // but certainly illegal, and isl would take a second to say so.
  bool elementwise(const Plan& plan) const {
    std::map<std::string, int> loopsUsing;
    std::set<std::string> written;
    for (auto& l : plan.runLoops) {
      for (auto& t : tensorsAccessed(loopIn(state_.body, l))) ++loopsUsing[t];
      for (auto& t : tensorsWritten(loopIn(state_.body, l))) written.insert(t);
    }
    for (auto& t : written) {
      if (loopsUsing[t] < 2) continue;
      bool some = false;
      for (size_t d = 0; !some && d < 8; ++d) {
        bool all = true;
        for (size_t q = 0; all && q < plan.runLoops.size(); ++q) {
          const std::string& var = loopWithId(state_.body, plan.fuseOver[q])->var;
          for (auto& a : accessesOf(loopIn(state_.body, plan.runLoops[q]), t))
            all = all && d < a.size() && isVar(a[d], var);
        }
        some = all;
      }
      if (!some) return false;
    }
    return true;
  }

  // Moving `inner` outermost in `loop`'s perfect nest does not leave the
  // innermost loop walking memory with strides where it did not: a product
  // `for k: for j: y[i, j] += a[i, k] * b[k, j]` fused over j would sum
  // down b's columns (libop's matmul, y = its result: 150x slower), where
  // a row maximum `for k: for i: m[i] max= x[i, k]` fused over i walks x's
  // rows instead of its columns.
  bool keepsInnermostContiguous(const std::string& loop, const std::string& inner) const {
    auto chain = perfectChain(state_.body, loop);
    if (chain.empty() || chain.back() != inner || chain.size() < 2) return true;
    const StmtP nest = loopIn(state_.body, loop);
    const std::string& before = loopWithId(state_.body, inner)->var;
    const std::string& after = loopWithId(state_.body, chain[chain.size() - 2])->var;
    return stridedAlong(nest, after) <= stridedAlong(nest, before);
  }

  // The loop of `loop`'s perfect nest whose iterator is the index of
  // dimension d in every access of t there ("": none).
  std::string loopIndexing(const std::string& loop, const std::string& t, size_t d) const {
    auto accesses = accessesOf(loopIn(state_.body, loop), t);
    for (auto& id : perfectChain(state_.body, loop)) {
      bool all = true;
      for (auto& a : accesses) all = all && d < a.size() && isVar(a[d], loopWithId(state_.body, id)->var);
      if (all) return id;
    }
    return "";
  }

  // The outermost loop of `loop`'s perfect nest with the range of `like`.
  std::string loopOfRange(const std::string& loop, const For* like) const {
    if (!like) return "";
    for (auto& id : perfectChain(state_.body, loop))
      if (sameRange(*like, *loopWithId(state_.body, id))) return id;
    return "";
  }

  // `inner`, a loop of `outer`'s perfect nest, moved outermost in it.
  bool bringOut(const std::string& outer, const std::string& inner) {
    if (outer == inner) return true;
    std::vector<std::string> order{inner};
    for (auto& l : perfectChain(state_.body, outer)) {
      if (l == inner) break;
      order.push_back(l);
    }
    return state_.tryStep({"reorder", order});
  }

  // The planned tensor made local to the fused loop, and then the other
  // tensors it writes of those the nest defines where `local` accepts:
  // whether the planned one became local.
  bool madeLocal(const std::string& loop, const std::string& planned) {
    if (!state_.tryStep({"local", {loop}, {}, planned})) return false;
    auto defined = definedTensors(state_.body);
    for (auto& t : tensorsWritten(loopIn(state_.body, loop)))
      if (defined.count(t)) state_.tryStep({"local", {loop}, {}, t});
    return true;
  }

  bool runsOnThreads(const std::string& loop) {
    AutoState probe = state_.fork();
    return probe.tryStep({"parallelize", {loop}});
  }

  AutoState& state_;
  std::set<std::string> tried_;  // "loop/tensor": plans tried
  int plans_ = 0;
};

}  // namespace

void autoFuseIntermediates(AutoState& state) {
  Fuser fuser(state);
  for (bool changed = true; changed && !fuser.spent();) {
    changed = false;
    for (auto& run : runsOfLoops(state.body)) {
      for (size_t p = 0; p + 1 < run.size() && !changed && !fuser.spent(); ++p)
        if (auto plan = fuser.planFrom(run, p)) {
          std::vector<std::string> from(run.begin() + static_cast<long>(p), run.end());
          changed = fuser.carryOut(from, *plan);
        }
      if (changed) break;  // ids and sequences moved: look again
    }
  }
}

}  // namespace teml::autoschedule
