#include "lowering/cpu/vector_plans.hpp"

#include "ir/affine.hpp"
#include "ir/index_patterns.hpp"
#include "analysis/register_reductions.hpp"
#include "analysis/factored_sums.hpp"
#include "ir/accesses.hpp"
#include "ir/functor.hpp"
#include "ir/mutator.hpp"
#include "ir/printer.hpp"
#include "lowering/cpu/half_vectors.hpp"
#include "lowering/memory_kinds.hpp"

namespace teml::lowering {

using namespace ir;

namespace {

// Can every statement of the loop's body run on whole vectors of its iterations?
class Planner : StmtFunctor<bool()>, ExprFunctor<bool()> {
 public:
  Planner(const For& loop, const Program& p) : var_(loop.var), program_(p) {}

  bool stmt(const StmtP& s) { return StmtFunctor<bool()>::dispatch(s); }

  bool mixed = false;
  bool sawType = false;
  DType dtype = DType::F64;

 private:
  bool access(const std::string& tensor, const std::vector<ExprP>& idx) {
    const TensorDecl* t = program_.find(tensor);
    if (!t || !isFloat(t->dtype)) return false;
    if (sawType && t->dtype != dtype) mixed = true;
    dtype = t->dtype;
    sawType = true;
    ExprP merged;
    if (!t->shape.empty() && mergedPair(idx, t->shape.back(), &merged)) {
      // Unit stride through the two merged dimensions; the others fixed.
      ir::Affine a;
      if (!ir::toAffine(merged, &a) || (a.coeff(var_) != 0 && a.coeff(var_) != 1)) return false;
      for (size_t d = 0; d + 2 < idx.size(); ++d)
        if (usesVar(idx[d], var_)) return false;
      return true;
    }
    for (size_t d = 0; d < idx.size(); ++d) {
      if (!usesVar(idx[d], var_)) continue;  // the same in every lane (an index read from data too)
      ir::Affine a;
      if (!ir::toAffine(idx[d], &a)) return false;
      int64_t c = a.coeff(var_);
      if (d + 1 < idx.size() ? c != 0 : (c != 0 && c != 1)) return false;
    }
    return true;
  }

  bool visitFor(const For& f) override {
    if (f.loopKind.threads() || f.loopKind.lanes()) return false;
    if (usesVar(f.begin, var_) || usesVar(f.end, var_)) return false;
    return stmt(f.body);
  }
  bool visitStore(const Store& st) override {
    return access(st.tensor, st.indices) && variesWith(st.indices, var_) && value(st.value);
  }
  bool visitReduce(const Reduce& r) override {
    // Atomic updates (threads sharing the element) have no vector form.
    return (r.op == ReduceOp::Add || r.op == ReduceOp::Mul) && !r.atomic && access(r.tensor, r.indices) &&
           variesWith(r.indices, var_) && value(r.value);
  }
  bool visitSeq(const Seq& q) override {
    for (auto& t : q.stmts)
      if (!stmt(t)) return false;
    return true;
  }
  // A guard the same in every lane (a window's bounds): its statements run
  // on whole vectors under it.
  bool visitIf(const If& i) override {
    return !usesVar(i.cond, var_) && stmt(i.then) && (!i.otherwise || stmt(i.otherwise));
  }
  bool visitLibCall(const LibCall&) override { return false; }
  bool visitVarDef(const VarDef&) override { return false; }
  bool visitAssert(const Assert&) override { return false; }
  bool visitBarrier(const Barrier&) override { return false; }
  bool visitExchange(const Exchange&) override { return false; }

  bool value(const ExprP& e) { return ExprFunctor<bool()>::dispatch(e); }
  bool visitFloatConst(const FloatConst&) override { return true; }
  bool visitLoad(const Load& l) override { return access(l.tensor, l.indices); }
  bool visitBinary(const Binary& b) override {
    bool arith = b.op == BinOp::Add || b.op == BinOp::Sub || b.op == BinOp::Mul || b.op == BinOp::Div;
    return arith && value(b.a) && value(b.b);
  }
  // Iterators or integers used as numbers.
  bool visitIntConst(const IntConst&) override { return false; }
  // Operations the vector emitter does not write in vector form (yet).
  bool visitUnary(const Unary&) override { return false; }
  bool visitCast(const Cast&) override { return false; }
  bool visitSelect(const Select&) override { return false; }
  bool visitVar(const Var&) override { return false; }

  std::string var_;
  const Program& program_;
};


// Inside an explicit vector loop: each loop keeps in vector registers the
// sums analysis/register_reductions finds for it that no loop around it keeps.
class RegisterSums : public Mutator {
 protected:
  StmtP mutateFor(const StmtP& s) override {
    auto& f = s->as<For>();
    std::vector<std::string> mine;
    std::vector<FactoredSum> factored;
    auto reduces = analysis::registerReductions(f);
    for (auto* r : reduces)
      if (kept_.insert(r->id).second) {
        mine.push_back(r->id);
        auto split = f.loopKind.factorSums ? analysis::factoredSum(*r, f) : std::nullopt;
        if (split && aloneAtItsElement(*r, reduces)) factored.push_back({r->id, split->shared, split->varying});
      }
    StmtP body = mutate(f.body);
    for (auto& id : mine) kept_.erase(id);
    if (mine.empty() && body == f.body) return s;
    LoopKind kind = f.loopKind;
    kind.cpu.registerSums = mine;
    kind.cpu.factoredSums = factored;
    return std::make_shared<For>(f.id, f.var, f.begin, f.end, f.step, kind, body, f.made);
  }

 private:
  // A factored sum has a register of its own: no other reduction updates its element.
  static bool aloneAtItsElement(const Reduce& r, const std::vector<const Reduce*>& all) {
    std::string at = toString(load(r.tensor, r.indices, r.value->dtype));
    for (auto* o : all)
      if (o != &r && o->tensor == r.tensor && toString(load(o->tensor, o->indices, o->value->dtype)) == at) return false;
    return true;
  }

  std::set<std::string> kept_;
};

// A few vectors are written as copies of the body jammed into its inner loops.
constexpr int64_t kMaxJammedVectors = 4;

class VectorPlans : public Mutator {
 public:
  VectorPlans(const StmtP& nest, const Program& program, const target::Target& target)
      : program_(program), view_(program), target_(target) {
    forEachStmt(nest, [&](const StmtP& s) {
      if (s->kind == StmtKind::VarDef) defined_.insert(s->as<VarDef>().decl.name);
    });
    for (auto& a : accessesOf(nest))
      if (a.kind != AccessKind::Store) read_.insert(a.tensor);
  }

 protected:
  StmtP mutateFor(const StmtP& s) override {
    auto& f = s->as<For>();
    if (!f.loopKind.lanes() || f.loopKind.threads() || !f.loopKind.reductions.empty() || hasLocals(f))
      return withLoopAround(f, s);
    VectorPlan plan = planOf(f);
    if (plan.form == VectorForm::Pragma) return withLoopAround(f, s);
    LoopKind kind = f.loopKind;
    kind.cpu.vectorPlan = plan;
    // Nothing inside an explicit vector loop runs in lanes of its own (the planner refuses those).
    return std::make_shared<For>(f.id, f.var, f.begin, f.end, f.step, kind, RegisterSums().mutate(f.body), f.made);
  }
  // A tensor the nest defines is in scope in its body (a loop-local one as its box).
  StmtP mutateVarDef(const StmtP& s) override {
    view_.tensors.push_back(s->as<VarDef>().decl);
    StmtP out = Mutator::mutateVarDef(s);
    view_.tensors.pop_back();
    return out;
  }

 private:
  StmtP withLoopAround(const For& f, const StmtP& s) {
    around_.push_back(&f);
    StmtP out = Mutator::mutateFor(s);
    around_.pop_back();
    return out;
  }

  static bool hasLocals(const For& f) { return !localsOf(f).empty() || !localTensorsIn(f.body).empty(); }

  VectorPlan planOf(const For& loop) {
    VectorPlan plan;
    int64_t span;
    if (loop.step != 1 || !constValue(sub(loop.end, loop.begin), &span)) return plan;
    Planner p(loop, view_);
    if (!p.stmt(loop.body) || p.mixed || !p.sawType) return plan;
    int width = target_.lanes(p.dtype);
    // Fewer iterations than a vector: one masked vector where the sums stay in registers.
    if (span < width && (span < 2 || !analysis::sumsStayInRegisters(loop.body))) return plan;
    plan.dtype = p.dtype;
    plan.width = width;
    plan.span = span;
    int64_t chunks = span / width;
    // The last iterations, fewer than a vector, run as one vector whose
    // lanes past the end are masked off where its sums stay in registers:
    // a sum updated in memory would load what a masked store just wrote,
    // which processors do not forward (the load waits for the store to
    // reach the cache). Otherwise as scalar iterations.
    plan.tailLanes = analysis::sumsStayInRegisters(loop.body) ? static_cast<int>(span - chunks * width) : 0;
    if (chunks + (plan.tailLanes > 0) <= kMaxJammedVectors) {
      plan.form = VectorForm::Jammed;
    } else if (streamed(loop)) {
      plan.form = VectorForm::Streaming;
      plan.tailLanes = 0;
    } else {
      plan.form = VectorForm::Loop;
    }
    if (plan.form != VectorForm::Streaming && span >= width) {
      HalfWidthChoice half = halfWidthOf(loop, around_, view_, target_);
      plan.half = half.when;
      for (auto& t : half.alignmentTested)  // the nest's own tensors are allocated on boundaries
        if (!defined_.count(t)) plan.alignmentTested.push_back(t);
      if (plan.half == HalfWidth::WhereMisaligned && plan.alignmentTested.empty()) plan.half = HalfWidth::Never;
    }
    return plan;
  }

  // The loop's body is one store into a program tensor too large for the
  // caches that nothing else in the nest reads or updates.
  bool streamed(const For& f) {
    if (f.body->kind != StmtKind::Store) return false;
    auto& st = f.body->as<Store>();
    const TensorDecl* t = program_.find(st.tensor);
    if (!t || defined_.count(st.tensor) || read_.count(st.tensor)) return false;
    return t->elementCount() * bytes(t->dtype) >= kStreamingBytes;
  }

  const Program& program_;
  Program view_;  // the program's tensors and the nest's own in scope
  const target::Target& target_;
  std::set<std::string> defined_, read_;
  std::vector<const For*> around_;  // the loops around the one planned, innermost last
};

}  // namespace

StmtP planVectorLoops(const StmtP& nest, const Program& program, const target::Target& target) {
  return VectorPlans(nest, program, target).mutate(nest);
}

}  // namespace teml::lowering
