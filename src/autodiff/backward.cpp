#include "autodiff/backward.hpp"

#include <optional>

#include "autodiff/partials.hpp"
#include "autodiff/recompute.hpp"
#include "analysis/legality.hpp"
#include "ir/accesses.hpp"
#include "ir/functor.hpp"
#include "diag/diagnostics.hpp"
#include "ir/mutator.hpp"
#include "ir/unique_statement_ids.hpp"

namespace teml::autodiff {

using namespace ir;

namespace {

// A contribution of a zero adjoint is zero. Its partials may be infinite or
// NaN where the forward values overflowed, and 0 * inf is NaN: a value the
// program overwrites before reading it keeps a zero adjoint, and every
// gradient read NaN (fuzz seed 10232, a loop of running products). A NaN
// adjoint still gives NaN; what differs is only 0 * inf and 0 * NaN. For
// adjoints of scalars (a statement's seed, a local's gradient): a select on
// an element of an array's adjoint kept the loops over it out of explicit
// vectors (GAT's and SubdivNet's gradients ran 2.5 to 8 times slower).
ExprP ofNonzero(const ExprP& adjoint, const ExprP& contribution) {
  bool scalar = adjoint->kind == ExprKind::Load && adjoint->as<Load>().indices.empty();
  if (!scalar || equal(contribution, adjoint)) return contribution;
  return select(binary(BinOp::Ne, adjoint, floatConst(0, adjoint->dtype)), contribution,
                floatConst(0, contribution->dtype));
}

class Backward : public StmtFunctor<StmtP()> {
 public:
  Backward(const StmtP& nest, const std::set<std::string>& active, const std::map<std::string, std::string>& gradientOf,
           const std::map<std::string, TapeChoice>& tapes, const std::map<std::string, SavedWrite>& saves,
           const std::set<std::string>& resultsKept)
      : nest_(nest), active_(active), gradientOf_(gradientOf), tapes_(tapes), saves_(saves), resultsKept_(resultsKept) {}

  StmtP reverse(const StmtP& s) { return dispatch(s); }

 private:
  StmtP visitSeq(const Seq& q) override {
    std::vector<StmtP> out;
    for (auto it = q.stmts.rbegin(); it != q.stmts.rend(); ++it) out.push_back(reverse(*it));
    return makeSeqOfPresent(std::move(out));
  }
  StmtP visitIf(const If& i) override {
    StmtP then = reverse(i.then), otherwise = i.otherwise ? reverse(i.otherwise) : nullptr;
    if (!then && !otherwise) return nullptr;
    return makeIf(i.cond, then ? then : makeSeq({}), otherwise);
  }
  StmtP visitBarrier(const Barrier&) override { return nullptr; }  // made after differentiation
  StmtP visitExchange(const Exchange&) override { return nullptr; }
  StmtP visitAssert(const Assert& a) override {
    StmtP body = reverse(a.body);
    return body ? makeAssert(a.cond, a.message, a.shown, a.loc, body) : nullptr;
  }
  StmtP visitLibCall(const LibCall& c) override { return reverse(c.reference); }

  std::string gradientName(const std::string& t) const { return gradientOf_.at(t); }
  bool active(const std::string& t) const { return active_.count(t) > 0; }

  StmtP visitFor(const For& f) override {
    StmtP body = reverse(f.body);
    if (!body) return nullptr;
    if (orderFree(f))
      return std::make_shared<For>(f.id + ".grad", f.var, f.begin, f.end, f.step, LoopKind{}, body,
                                   Provenance{f.made.loc, "gradient", f.id});
    // The last value the loop takes, b + s * floor((e - b - 1) / s) (b - |s| *
    // floor((b - e - 1) / |s|) counting down), then back to b.
    int64_t s = f.step;
    ExprP begin, end;
    if (s == 1) {
      begin = sub(f.end, intConst(1));
      end = sub(f.begin, intConst(1));
    } else if (s > 0) {
      begin = add(f.begin, mul(floorDiv(sub(sub(f.end, f.begin), intConst(1)), intConst(s)), intConst(s)));
      end = sub(f.begin, intConst(1));
    } else {
      begin = sub(f.begin, mul(floorDiv(sub(sub(f.begin, f.end), intConst(1)), intConst(-s)), intConst(-s)));
      end = add(f.begin, intConst(1));
    }
    return std::make_shared<For>(f.id + ".grad", f.var, begin, end, -s, LoopKind{}, body,
                                 Provenance{f.made.loc, "gradient", f.id});
  }

  // The backward iterations of f may run in the forward order: the forward
  // iterations touch no element in common (isl), or they only add into
  // tensors the loop does not read (a sum's terms: their adjoints read the
  // sum's gradient, which the loop does not change). A loop in its own order
  // keeps unit steps, which the analyses of the lowering stage (private
  // accumulators' boxes) take best.
  bool orderFree(const For& f) const {
    bool sumsOnly = true;
    std::set<std::string> summed, read;
    forEachStmt(f.body, [&](const StmtP& s) {
      if (s->kind == StmtKind::Store || s->kind == StmtKind::VarDef || s->kind == StmtKind::LibCall) sumsOnly = false;
      if (saves_.count(s->id)) sumsOnly = false;  // its restores must come in reverse
      if (s->kind == StmtKind::Reduce) {
        auto& r = s->as<Reduce>();
        sumsOnly = sumsOnly && r.op == ReduceOp::Add;
        summed.insert(r.tensor);
      }
    });
    for (auto& a : accessesOf(f.body))
      if (a.kind == AccessKind::Read) read.insert(a.tensor);
    for (auto& t : summed) sumsOnly = sumsOnly && !read.count(t);
    return sumsOnly || analysis::loopIsIndependent(nest_, f.id);
  }

  // A tensor defined inside the program: recomputed in its scope, with its
  // gradient (when it has one) defined around the adjoints.
  StmtP visitVarDef(const VarDef& v) override {
    const std::string& t = v.decl.name;
    if (v.loopLocal && v.loopLocal->init != 0)
      throw UserError(SourceLoc{}, "gradient: the local tensor '" + t + "' starts at " +
                                       std::to_string(v.loopLocal->init) + "; only locals starting at 0 are recomputed yet");
    StmtP adjoints = reverse(v.body);
    if (!adjoints) return nullptr;
    if (active(t)) {
      TensorDecl g = v.decl;
      g.name = gradientName(t);
      adjoints = makeVarDef(g, adjoints);
    }
    auto tape = tapes_.find(t);
    if (tape != tapes_.end() && tape->second.stored)
      return withTape(v.decl, tape->second, adjoints);
    return makeVarDef(v.decl, makeSeqOfPresent({recomputation(v.body, t), adjoints}));
  }

  // x.grad[J] += contribution for every load x[J] of `value` that carries a
  // gradient, inside the scopes of the adjoints they share. `adjoint`: the
  // adjoint of the element written, whose contributions are zero where it is
  // (ofNonzero); `seed` is it times what the statement's result factors in.
  StmtP accumulate(const ExprP& value, const ExprP& seed, SourceLoc loc, const std::string& gradient,
                   const ExprP& adjoint) {
    auto carries = [&](const Load& l) { return active(l.tensor); };
    auto fresh = [&] { return gradient + ".adj" + std::to_string(++sharedAdjoints_); };
    Partials p = partials(value, seed, carries, fresh);
    std::vector<StmtP> updates;
    for (auto& x : p.partials)
      if (active(x.at->tensor))
        updates.push_back(makeReduce(ReduceOp::Add, gradientName(x.at->tensor), x.at->indices,
                                     ofNonzero(adjoint, x.contribution), loc));
    StmtP out = makeSeqOfPresent(std::move(updates));
    for (auto it = p.shared.rbegin(); out && it != p.shared.rend(); ++it)
      out = makeVarDef(it->scalar, makeSeq({makeStore(it->scalar.name, {}, it->value, loc), out}));
    return out;
  }

  // The element a saved statement overwrote, put back (autodiff/versions)
  // before its adjoint reads the values its forward instance saw.
  StmtP restored(const Stmt& w, const std::vector<ExprP>& indices) const {
    auto it = saves_.find(w.id);
    return it == saves_.end() ? nullptr : restore(it->second, indices);
  }

  StmtP visitStore(const Store& st) override {
    StmtP back = restored(st, st.indices);
    if (!active(st.tensor)) return back;
    DType t = st.value->dtype;
    const std::string g = gradientName(st.tensor);
    ExprP here = load(g, st.indices, t);
    StmtP reset = makeStore(g, st.indices, floatConst(0, t), st.loc);
    // y[I] = exp(u) with y[I] as the store left it: u's partials read y[I]
    // (taken before y[I] is put back) instead of computing exp(u) again.
    ExprP value = st.value, factor;
    std::optional<TensorDecl> result;
    if (resultsKept_.count(st.id)) {
      result = TensorDecl{g + ".result", t, {}};
      factor = partialOfResult(st.value, load(result->name, {}, t));
      value = st.value->as<Unary>().a;
    }
    auto seeded = [&](const ExprP& seed) { return factor ? mul(seed, factor) : seed; };
    StmtP out;
    if (!reads(st.value, st.tensor)) {
      out = makeSeqOfPresent({back, accumulate(value, seeded(here), st.loc, g, here), reset});
    } else {
      // y[I] = f(y[J]): the gradient that reached y[I] is taken before
      // y.grad[I] is reset, since the updates may add to y.grad[J] == y.grad[I].
      TensorDecl seed{g + ".seed", t, {}};
      ExprP taken = load(seed.name, {}, t);
      out = makeVarDef(seed, makeSeqOfPresent({makeStore(seed.name, {}, here, st.loc), reset, back,
                                               accumulate(value, seeded(taken), st.loc, g, taken)}));
    }
    if (!result) return out;
    return makeVarDef(*result, makeSeq({makeStore(result->name, {}, load(st.tensor, st.indices, t), st.loc), out}));
  }

  StmtP visitReduce(const Reduce& r) override {
    StmtP back = restored(r, r.indices);
    if (!active(r.tensor)) return back;
    const std::string g = gradientName(r.tensor);
    DType t = r.value->dtype;
    ExprP here = load(g, r.indices, t);
    // y[I] += f(y[J]) or *= f(y[J]): the updates add to y.grad[J], which may
    // be y.grad[I]; the gradient that reached y[I] is taken before them.
    std::optional<TensorDecl> seed;
    if ((r.op == ReduceOp::Add || r.op == ReduceOp::Mul) && reads(r.value, r.tensor)) {
      seed = TensorDecl{g + ".seed", t, {}};
      here = load(seed->name, {}, t);
    }
    auto seeded = [&](std::vector<StmtP> adjoint) {
      if (!seed) return makeSeqOfPresent(std::move(adjoint));
      adjoint.insert(adjoint.begin(), makeStore(seed->name, {}, load(g, r.indices, t), r.loc));
      return makeVarDef(*seed, makeSeqOfPresent(std::move(adjoint)));
    };
    if (r.op == ReduceOp::Add) return seeded({back, accumulate(r.value, here, r.loc, g, here)});
    // y[I] *= e with y[I] back at its value before: e's operands take
    // y.grad[I] * y[I], the earlier y[I] takes y.grad[I] * e. With the
    // gradient taken, the second comes first: e's operands may be y[I].
    if (r.op == ReduceOp::Mul) {
      StmtP operands = accumulate(r.value, mul(here, load(r.tensor, r.indices, t)), r.loc, g, here);
      StmtP earlier = makeStore(g, r.indices, ofNonzero(here, mul(here, r.value)), r.loc);
      return seed ? seeded({back, earlier, operands}) : seeded({back, operands, earlier});
    }
    // max= / min=: y's final value came from the term equal to it; that term
    // takes y.grad[I] (the last such term of the forward pass on a tie) and
    // uses it up, so neither other terms nor y's starting value get it.
    StmtP taken = makeSeqOfPresent({accumulate(r.value, here, r.loc, g, here), makeStore(g, r.indices, floatConst(0, r.value->dtype), r.loc)});
    return makeIf(binary(BinOp::Eq, r.value, load(r.tensor, r.indices, r.value->dtype)), taken, nullptr);
  }

  StmtP nest_;  // the forward nest
  int sharedAdjoints_ = 0;
  const std::set<std::string>& active_;
  const std::map<std::string, std::string>& gradientOf_;
  const std::map<std::string, TapeChoice>& tapes_;
  const std::map<std::string, SavedWrite>& saves_;
  const std::set<std::string>& resultsKept_;
};

// Every store and reduction of the backward nest gets an identity of its
// own for the dependence analysis: a fresh id and the loops around it.
class Retag : public Mutator {
 protected:
  StmtP mutateFor(const StmtP& s) override {
    auto& f = s->as<For>();
    loops_.push_back(f.var);
    StmtP out = Mutator::mutateFor(s);
    loops_.pop_back();
    return out;
  }
  StmtP mutateStore(const StmtP& s) override {
    auto& st = s->as<Store>();
    return std::make_shared<Store>(st.tensor, st.indices, st.value, st.loc, tag(), st.id, st.made);
  }
  StmtP mutateReduce(const StmtP& s) override {
    auto& r = s->as<Reduce>();
    return std::make_shared<Reduce>(r.op, r.tensor, r.indices, r.value, r.loc, tag(), r.atomic, r.id, r.made);
  }

 private:
  StmtTag tag() {
    StmtTag t{"G" + std::to_string(++count_), loops_, {}};
    for (auto& v : loops_) t.origin.push_back(var(v));
    return t;
  }
  std::vector<std::string> loops_;
  int count_ = 0;
};

}  // namespace

StmtP backwardNest(const StmtP& nest, const std::set<std::string>& active,
                   const std::map<std::string, std::string>& gradientOf, const std::map<std::string, TapeChoice>& tapes,
                   const std::map<std::string, SavedWrite>& saves, const std::set<std::string>& resultsKept) {
  StmtP back = Backward(nest, active, gradientOf, tapes, saves, resultsKept).reverse(nest);
  return back ? uniqueStatementIds(Retag().mutate(back)) : nullptr;
}

}  // namespace teml::autodiff
