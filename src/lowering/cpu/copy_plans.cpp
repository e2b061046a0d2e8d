#include "lowering/cpu/copy_plans.hpp"

#include <map>
#include <set>

#include "analysis/copy_nests.hpp"
#include "ir/accesses.hpp"
#include "ir/mutator.hpp"
#include "lowering/memory_kinds.hpp"

namespace teml::lowering {

using namespace ir;

namespace {

class CopyPlans : public Mutator {
 public:
  CopyPlans(const StmtP& nest, const Program& program, const target::Target& target) : target_(target) {
    for (auto& t : program.tensors) decls_[t.name] = t;
    for (auto& a : accessesOf(nest))
      if (a.kind != AccessKind::Store) read_.insert(a.tensor);
  }

 protected:
  StmtP mutateFor(const StmtP& s) override {
    auto& f = s->as<For>();
    // An explicit vector loop is written as vectors throughout.
    if (f.loopKind.lanes() && f.loopKind.cpu.vectorPlan.form != VectorForm::Pragma) return s;
    CopyPlan plan = planOf(f);
    if (plan.form != CopyForm::Loops) {
      LoopKind kind = f.loopKind;
      kind.cpu.copy = plan;
      return std::make_shared<For>(f.id, f.var, f.begin, f.end, f.step, kind, f.body, f.made);
    }
    return Mutator::mutateFor(s);
  }
  // A tensor the nest defines is in scope in its body (a loop-local one as its box).
  StmtP mutateVarDef(const StmtP& s) override {
    auto& v = s->as<VarDef>();
    auto saved = decls_;
    auto savedLocals = locals_, savedPrefetching = prefetching_;
    decls_[v.decl.name] = v.decl;
    if (v.loopLocal) locals_.insert(v.decl.name);
    if (v.loopLocal && v.loopLocal->prefetchAhead > 0) prefetching_.insert(v.decl.name);
    StmtP out = Mutator::mutateVarDef(s);
    decls_ = saved;
    locals_ = savedLocals;
    prefetching_ = savedPrefetching;
    return out;
  }

 private:
  CopyPlan planOf(const For& f) {
    analysis::DeclOf storage = [&](const std::string& t) -> const TensorDecl* {
      auto d = decls_.find(t);
      return d == decls_.end() ? nullptr : &d->second;
    };
    CopyPlan plan;
    std::vector<const For*> loops;
    const Store* copy = analysis::copyNest(f, storage, &loops);
    if (!copy) return plan;
    // A distributed loop's bounds become its rank's block after this pass
    // (lowering/distributed): a plan made from the whole range would copy
    // every rank's part, past the span a rank keeps.
    if (f.loopKind.distributed) return plan;
    for (const For* l : loops)
      if (l->loopKind.distributed) return plan;
    auto& ld = copy->value->as<Load>();
    plan.to = copy->tensor;
    plan.from = ld.tensor;
    const TensorDecl* to = storage(copy->tensor);
    // A copy that prefetches interleaves its prefetches with gathered vectors.
    if (!prefetching_.count(copy->tensor) &&
        analysis::contiguousBlock(copy->tensor, copy->indices, loops, storage, &plan.toFirst) &&
        analysis::contiguousBlock(ld.tensor, ld.indices, loops, storage, &plan.fromFirst)) {
      bool large = !locals_.count(copy->tensor) && !read_.count(copy->tensor) &&
                   to->elementCount() * bytes(to->dtype) >= kStreamingBytes;
      plan.form = large ? CopyForm::FlatStreaming : CopyForm::Flat;
      int64_t perRow = 1;
      for (size_t k = 1; k < loops.size(); ++k)
        perRow *= sub(loops[k]->end, loops[k]->begin)->as<IntConst>().value;
      plan.elements = mul(sub(loops[0]->end, loops[0]->begin), intConst(perRow));
      return plan;
    }
    plan.width = target_.lanes(to->dtype);
    if (!analysis::gatheredOrder(*copy, loops, storage, plan.width, &plan.loops)) return CopyPlan{};
    plan.form = CopyForm::Gathered;
    std::map<std::string, ExprP> starts;
    for (auto* l : loops) starts[l->var] = l->begin;
    plan.toFirst.clear();
    plan.fromFirst.clear();
    for (auto& e : copy->indices) plan.toFirst.push_back(substitute(e, starts));
    for (auto& e : ld.indices) plan.fromFirst.push_back(substitute(e, starts));
    return plan;
  }

  const target::Target& target_;
  std::map<std::string, TensorDecl> decls_;   // the program's tensors and the nest's own in scope
  std::set<std::string> read_, prefetching_, locals_;  // locals_: loop-local tensors in scope
};

}  // namespace

StmtP planCopies(const StmtP& nest, const Program& program, const target::Target& target) {
  return CopyPlans(nest, program, target).mutate(nest);
}

}  // namespace teml::lowering
