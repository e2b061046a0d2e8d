#include "autodiff/backward.hpp"

#include "autodiff/partials.hpp"
#include "analysis/legality.hpp"
#include "ir/accesses.hpp"
#include "ir/functor.hpp"
#include "diag/diagnostics.hpp"
#include "ir/mutator.hpp"
#include "ir/unique_statement_ids.hpp"

namespace teml::autodiff {

using namespace ir;

namespace {

bool reads(const ExprP& e, const std::string& tensor) {
  bool found = false;
  forEachExpr(e, [&](const ExprP& x) {
    found = found || (x->kind == ExprKind::Load && static_cast<const Load&>(*x).tensor == tensor);
  });
  return found;
}

StmtP seqOf(std::vector<StmtP> stmts) {
  std::erase(stmts, nullptr);
  return stmts.empty() ? nullptr : makeSeq(std::move(stmts));
}

// The statements of a scope that write tensors in `locals` (and tensors
// defined inside it), as copies with their identity left to retagging.
class Recompute : public StmtFunctor<StmtP(const std::set<std::string>&)> {
  using Locals = const std::set<std::string>&;
  StmtP visitSeq(const Seq& q, Locals locals) override {
    std::vector<StmtP> out;
    for (auto& x : q.stmts) out.push_back(dispatch(x, locals));
    return seqOf(std::move(out));
  }
  StmtP visitFor(const For& f, Locals locals) override {
    StmtP body = dispatch(f.body, locals);
    if (!body) return nullptr;
    return std::make_shared<For>(f.id + ".again", f.var, f.begin, f.end, f.step, LoopKind{}, body,
                                 Provenance{f.made.loc, "gradient", f.id});
  }
  StmtP visitIf(const If& i, Locals locals) override {
    StmtP then = dispatch(i.then, locals), otherwise = i.otherwise ? dispatch(i.otherwise, locals) : nullptr;
    if (!then && !otherwise) return nullptr;
    return makeIf(i.cond, then ? then : makeSeq({}), otherwise);
  }
  StmtP visitAssert(const Assert& a, Locals locals) override {
    StmtP body = dispatch(a.body, locals);
    return body ? makeAssert(a.cond, a.message, a.shown, a.loc, body) : nullptr;
  }
  // A tensor defined inside is recomputed here only when the scope also
  // writes one of `locals` (it may read it); else its own backward scope
  // recomputes it (a chain of scopes, as free-form locals nest, would
  // otherwise recompute each inner one again for every scope around it).
  StmtP visitVarDef(const VarDef& v, Locals locals) override {
    std::set<std::string> inner = locals;
    inner.insert(v.decl.name);
    StmtP body = dispatch(v.body, inner);
    if (!body) return nullptr;
    bool needed = false;
    for (auto& t : tensorsWritten(body)) needed = needed || locals.count(t);
    return needed ? makeVarDef(v.decl, body) : nullptr;
  }
  StmtP visitStore(const Store& st, Locals locals) override {
    return locals.count(st.tensor) ? makeStore(st.tensor, st.indices, st.value, st.loc) : nullptr;
  }
  StmtP visitReduce(const Reduce& r, Locals locals) override {
    return locals.count(r.tensor) ? makeReduce(r.op, r.tensor, r.indices, r.value, r.loc) : nullptr;
  }
  StmtP visitLibCall(const LibCall&, Locals) override { return nullptr; }  // writes a program tensor
};

class Backward : public StmtFunctor<StmtP()> {
 public:
  Backward(const StmtP& nest, const std::set<std::string>& active, const std::map<std::string, std::string>& gradientOf,
           const std::map<std::string, TapeChoice>& tapes)
      : nest_(nest), active_(active), gradientOf_(gradientOf), tapes_(tapes) {}

  StmtP reverse(const StmtP& s) { return dispatch(s); }

 private:
  StmtP visitSeq(const Seq& q) override {
    std::vector<StmtP> out;
    for (auto it = q.stmts.rbegin(); it != q.stmts.rend(); ++it) out.push_back(reverse(*it));
    return seqOf(std::move(out));
  }
  StmtP visitIf(const If& i) override {
    StmtP then = reverse(i.then), otherwise = i.otherwise ? reverse(i.otherwise) : nullptr;
    if (!then && !otherwise) return nullptr;
    return makeIf(i.cond, then ? then : makeSeq({}), otherwise);
  }
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
    if (s > 0) {
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
      if (s->kind == StmtKind::Reduce) {
        auto& r = static_cast<const Reduce&>(*s);
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
      return makeVarDef(v.decl, seqOf({loadFromTape(v.decl, tape->second), adjoints}));
    return makeVarDef(v.decl, seqOf({Recompute()(v.body, {t}), adjoints}));
  }

  // x.grad[J] += contribution for every load x[J] of `value` that carries a gradient.
  std::vector<StmtP> accumulate(const ExprP& value, const ExprP& seed, SourceLoc loc) {
    std::vector<StmtP> out;
    for (auto& p : partials(value, seed))
      if (active(p.at->tensor))
        out.push_back(makeReduce(ReduceOp::Add, gradientName(p.at->tensor), p.at->indices, p.contribution, loc));
    return out;
  }

  StmtP visitStore(const Store& st) override {
    if (!active(st.tensor)) return nullptr;
    DType t = st.value->dtype;
    const std::string g = gradientName(st.tensor);
    ExprP here = load(g, st.indices, t);
    StmtP reset = makeStore(g, st.indices, floatConst(0, t), st.loc);
    if (!reads(st.value, st.tensor)) {
      std::vector<StmtP> out = accumulate(st.value, here, st.loc);
      out.push_back(reset);
      return seqOf(std::move(out));
    }
    // y[I] = f(y[J]): the gradient that reached y[I] is taken before y.grad[I]
    // is reset, since the updates may add to y.grad[J] == y.grad[I].
    TensorDecl seed{g + ".seed", t, {}};
    ExprP taken = load(seed.name, {}, t);
    std::vector<StmtP> body = {makeStore(seed.name, {}, here, st.loc), reset};
    for (auto& s : accumulate(st.value, taken, st.loc)) body.push_back(s);
    return makeVarDef(seed, makeSeq(std::move(body)));
  }

  StmtP visitReduce(const Reduce& r) override {
    if (!active(r.tensor)) return nullptr;
    ExprP here = load(gradientName(r.tensor), r.indices, r.value->dtype);
    if (r.op == ReduceOp::Add) return seqOf(accumulate(r.value, here, r.loc));
    if (r.op == ReduceOp::Mul)
      throw UserError(r.loc, "gradient: a `*=` reduction into '" + r.tensor +
                                 "' has no adjoint yet (`=`, `+=`, `max=` and `min=` are differentiated)");
    // max= / min=: y's final value came from the term equal to it; that term
    // takes y.grad[I] (the last such term of the forward pass on a tie) and
    // uses it up, so neither other terms nor y's starting value get it.
    std::vector<StmtP> taken = accumulate(r.value, here, r.loc);
    taken.push_back(makeStore(gradientName(r.tensor), r.indices, floatConst(0, r.value->dtype), r.loc));
    return makeIf(binary(BinOp::Eq, r.value, load(r.tensor, r.indices, r.value->dtype)), seqOf(std::move(taken)), nullptr);
  }

  StmtP nest_;  // the forward nest
  const std::set<std::string>& active_;
  const std::map<std::string, std::string>& gradientOf_;
  const std::map<std::string, TapeChoice>& tapes_;
};

// Every store and reduction of the backward nest gets an identity of its
// own for the dependence analysis: a fresh id and the loops around it.
class Retag : public Mutator {
 protected:
  StmtP mutateFor(const StmtP& s) override {
    auto& f = static_cast<const For&>(*s);
    loops_.push_back(f.var);
    StmtP out = Mutator::mutateFor(s);
    loops_.pop_back();
    return out;
  }
  StmtP mutateStore(const StmtP& s) override {
    auto& st = static_cast<const Store&>(*s);
    return std::make_shared<Store>(st.tensor, st.indices, st.value, st.loc, tag(), st.id, st.made);
  }
  StmtP mutateReduce(const StmtP& s) override {
    auto& r = static_cast<const Reduce&>(*s);
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
                   const std::map<std::string, std::string>& gradientOf, const std::map<std::string, TapeChoice>& tapes) {
  StmtP back = Backward(nest, active, gradientOf, tapes).reverse(nest);
  return back ? uniqueStatementIds(Retag().mutate(back)) : nullptr;
}

}  // namespace teml::autodiff
