#include "codegen/vector_plan.hpp"

#include "analysis/affine.hpp"
#include "ir/functor.hpp"
#include "ir/mutator.hpp"

namespace teml::codegen {

using namespace ir;

bool variesWith(const std::vector<ExprP>& indices, const std::string& var) {
  return !indices.empty() && usesVar(indices.back(), var);
}

bool mergedPair(const std::vector<ExprP>& indices, int64_t lastExtent, ExprP* x) {
  if (indices.size() < 2) return false;
  const ExprP& a = indices[indices.size() - 2];
  const ExprP& b = indices.back();
  if (a->kind != ExprKind::Binary || b->kind != ExprKind::Binary) return false;
  auto& div = static_cast<const Binary&>(*a);
  auto& mod = static_cast<const Binary&>(*b);
  int64_t n1, n2;
  if (div.op != BinOp::FloorDiv || mod.op != BinOp::Mod || !constValue(div.b, &n1) || !constValue(mod.b, &n2) ||
      n1 != lastExtent || n2 != lastExtent || !equal(div.a, mod.a))
    return false;
  *x = div.a;
  return true;
}

namespace {

// Can every statement of the loop's body run on whole vectors of its iterations?
class Planner : StmtFunctor<bool()>, ExprFunctor<bool()> {
 public:
  Planner(const For& loop, const Program& p, const std::set<std::string>& locals)
      : var_(loop.var), program_(p), locals_(locals) {}

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
    if (!t->shape.empty() && !locals_.count(tensor) && mergedPair(idx, t->shape.back(), &merged)) {
      // Unit stride through the two merged dimensions; the others fixed.
      analysis::Affine a;
      if (!analysis::toAffine(merged, &a) || (a.coeff(var_) != 0 && a.coeff(var_) != 1)) return false;
      for (size_t d = 0; d + 2 < idx.size(); ++d)
        if (usesVar(idx[d], var_)) return false;
      return true;
    }
    for (size_t d = 0; d < idx.size(); ++d) {
      analysis::Affine a;
      if (!analysis::toAffine(idx[d], &a)) return false;
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
  bool visitIf(const If&) override { return false; }
  bool visitLibCall(const LibCall&) override { return false; }
  bool visitVarDef(const VarDef&) override { return false; }
  bool visitAssert(const Assert&) override { return false; }

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
  const std::set<std::string>& locals_;
};

}  // namespace

VectorPlan planVectorLoop(const For& loop, const Program& program, const target::Target& target,
                          const std::set<std::string>& locals) {
  VectorPlan plan;
  int64_t span;
  if (loop.step != 1 || !constValue(sub(loop.end, loop.begin), &span)) return plan;
  Planner p(loop, program, locals);
  if (!p.stmt(loop.body) || p.mixed || !p.sawType) return plan;
  plan.dtype = p.dtype;
  plan.width = target.lanes(p.dtype);
  plan.span = span;
  plan.ok = span >= plan.width;
  return plan;
}

}  // namespace teml::codegen
