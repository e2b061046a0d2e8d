#include "lowering/copy_plans.hpp"

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
    forEachStmt(nest, [&](const StmtP& s) {
      if (s->kind != StmtKind::VarDef) return;
      auto& v = static_cast<const VarDef&>(*s);
      decls_.emplace(v.decl.name, v.decl);
    });
    for (auto& a : accessesOf(nest))
      if (a.kind != AccessKind::Store) read_.insert(a.tensor);
  }

 protected:
  StmtP mutateFor(const StmtP& s) override {
    auto& f = static_cast<const For&>(*s);
    // An explicit vector loop is written as vectors throughout.
    if (f.loopKind.lanes() && f.loopKind.vectorPlan.form != VectorForm::Pragma) return s;
    CopyForm form = formOf(f);
    if (form != CopyForm::Loops) {
      LoopKind kind = f.loopKind;
      kind.copyForm = form;
      return std::make_shared<For>(f.id, f.var, f.begin, f.end, f.step, kind, f.body, f.made);
    }
    // The loop's local tensors are in scope in its body, stored as their boxes.
    auto saved = boxes_;
    auto savedPrefetching = prefetching_;
    for (auto& l : localsOf(f)) {
      boxes_[l.decl.name] = l.box;
      if (l.prefetchAhead > 0) prefetching_.insert(l.decl.name);
    }
    StmtP out = Mutator::mutateFor(s);
    boxes_ = saved;
    prefetching_ = savedPrefetching;
    return out;
  }

 private:
  CopyForm formOf(const For& f) {
    analysis::StorageOf storage = [&](const std::string& t) {
      analysis::Storage st;
      auto d = decls_.find(t);
      if (d != decls_.end()) st.decl = &d->second;
      auto b = boxes_.find(t);
      if (b != boxes_.end()) st.box = &b->second;
      return st;
    };
    std::vector<const For*> loops;
    const Store* copy = analysis::copyNest(f, storage, &loops);
    if (!copy) return CopyForm::Loops;
    auto& ld = static_cast<const Load&>(*copy->value);
    std::vector<ExprP> first;
    // A copy that prefetches interleaves its prefetches with gathered vectors.
    if (!prefetching_.count(copy->tensor) && analysis::contiguousBlock(copy->tensor, copy->indices, loops, storage, &first) &&
        analysis::contiguousBlock(ld.tensor, ld.indices, loops, storage, &first)) {
      const TensorDecl* to = storage(copy->tensor).decl;
      bool large = !boxes_.count(copy->tensor) && !read_.count(copy->tensor) &&
                   to->elementCount() * bytes(to->dtype) >= kStreamingBytes;
      return large ? CopyForm::FlatStreaming : CopyForm::Flat;
    }
    std::vector<analysis::CopyLoop> order;
    int width = target_.lanes(storage(copy->tensor).decl->dtype);
    return analysis::gatheredOrder(*copy, loops, storage, width, &order) ? CopyForm::Gathered : CopyForm::Loops;
  }

  const target::Target& target_;
  std::map<std::string, TensorDecl> decls_;  // the program's tensors and the nest's own
  std::set<std::string> read_, prefetching_;
  std::map<std::string, Box> boxes_;  // loop-local tensors in scope
};

}  // namespace

StmtP planCopies(const StmtP& nest, const Program& program, const target::Target& target) {
  return CopyPlans(nest, program, target).mutate(nest);
}

}  // namespace teml::lowering
