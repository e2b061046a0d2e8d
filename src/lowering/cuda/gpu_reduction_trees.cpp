// A reduction that all threads of a one-dimensional block apply to one
// element (`s[i] += e` in a loop bound to threadIdx.x, s[i] the same for
// every thread) is summed in a tree instead of by atomics on one address:
// each thread reduces into its own slot of a shared array (starting from
// the operator's identity), the slots are folded in halves (a power of two
// first, then n/2, n/4, ... 1, each step its own thread loop, so that
// gpu_barriers puts a barrier between steps), and thread 0 applies the
// block's result to the element, atomically only where blocks meet there
// too (gpu_reductions decides it again). Runs after gpu_memory_kinds (the
// array is shared memory, written before it is read) and before
// gpu_barriers.
#include <map>

#include "diag/diagnostics.hpp"
#include "ir/accesses.hpp"
#include "ir/fresh_name.hpp"
#include "ir/mutator.hpp"
#include "lowering/cuda/cuda_passes.hpp"

namespace teml::lowering {

using namespace ir;

namespace {

BinOp binaryOf(ReduceOp op) {
  switch (op) {
    case ReduceOp::Add: return BinOp::Add;
    case ReduceOp::Mul: return BinOp::Mul;
    case ReduceOp::Max: return BinOp::Max;
    case ReduceOp::Min: return BinOp::Min;
  }
  return BinOp::Add;
}

ExprP identityOf(ReduceOp op, DType t) {
  double v = reduceIdentity(op);
  if (isIntegral(t)) {
    int64_t i = op == ReduceOp::Max ? (t == DType::I32 ? INT32_MIN : INT64_MIN)
                : op == ReduceOp::Min ? (t == DType::I32 ? INT32_MAX : INT64_MAX)
                                      : static_cast<int64_t>(v);
    return cast(t, intConst(i));
  }
  return floatConst(v, t);
}

class Trees {
 public:
  Trees(const StmtP& nest, const Program& program, const target::Target& target)
      : program_(program), target_(target) {
    forEachStmt(nest, [&](const StmtP& s) {
      if (s->kind == StmtKind::For) taken_.insert(s->as<For>().var);
      if (s->kind == StmtKind::VarDef) {
        taken_.insert(s->as<VarDef>().decl.name);
        decls_[s->as<VarDef>().decl.name] = s->as<VarDef>().decl;
      }
    });
    for (auto& t : program.tensors) taken_.insert(t.name), decls_[t.name] = t;
  }

  StmtP run(const StmtP& nest) {
    return eachKernel(nest, [&](const For& f) {
      const GpuKernelPlan& plan = f.loopKind.kernel;
      if (plan.blockDim[1] != 1 || plan.blockDim[2] != 1 || plan.blockDim[0] < 2) return f.self();
      return inKernel(f.self(), plan);
    });
  }

 private:
  // The thread loops at block level of a kernel, each with its reductions into one element.
  StmtP inKernel(const StmtP& root, const GpuKernelPlan& plan) {
    struct Loops : Mutator {
      Trees& t;
      const GpuKernelPlan& plan;
      int64_t shared = 0;
      Loops(Trees& t, const GpuKernelPlan& p) : t(t), plan(p) {}
      StmtP mutateFor(const StmtP& s) override {
        auto& f = s->as<For>();
        if (!f.loopKind.gpuThreads()) return Mutator::mutateFor(s);
        return t.tree(f, s, shared);
      }
    } loops(*this, plan);
    StmtP out = loops.mutate(root);
    if (out == root) return root;
    auto& f = out->as<For>();
    LoopKind kind = f.loopKind;
    kind.kernel.sharedBytes += loops.shared;
    kind.kernel.dynamicShared = kind.kernel.sharedBytes > target_.gpu.sharedBytes;
    if (kind.kernel.sharedBytes > target_.gpu.sharedBytesOptIn) return root;  // atomics then
    return std::make_shared<For>(f.id, f.var, f.begin, f.end, f.step, kind, f.body, f.made);
  }

  // Loop `f` over threads: each element that all its threads reduce into
  // (atomic, indices free of f's iterator and of every iterator inside f,
  // no other access to the tensor in f) gets a tree.
  StmtP tree(const For& f, const StmtP& s, int64_t& shared) {
    int64_t b = 0, e = 0;
    if (f.step != 1 || !constValue(f.begin, &b) || !constValue(f.end, &e) || e - b < 2) return s;
    int64_t n = e - b;
    std::set<std::string> inner{f.var};
    forEachStmt(f.body, [&](const StmtP& t) {
      if (t->kind == StmtKind::For) inner.insert(t->as<For>().var);
    });
    std::vector<const Reduce*> chosen;
    auto accesses = accessesOf(f.body);
    forEachStmt(f.body, [&](const StmtP& t) {
      if (t->kind != StmtKind::Reduce || !t->as<Reduce>().atomic) return;
      auto& r = t->as<Reduce>();
      for (auto& i : r.indices)
        for (auto& v : inner)
          if (usesVar(i, v)) return;
      for (auto& a : accesses) {
        if (a.tensor != r.tensor) continue;
        if (a.kind != AccessKind::Reduce || a.op != r.op || a.indices.size() != r.indices.size()) return;
        for (size_t d = 0; d < a.indices.size(); ++d)
          if (!equal(a.indices[d], r.indices[d])) return;
      }
      for (auto* c : chosen)
        if (c->tensor == r.tensor) return;  // one tree per element
      chosen.push_back(&r);
    });
    if (chosen.empty()) return s;
    StmtP loop = s;
    std::vector<StmtP> after;
    std::vector<std::pair<TensorDecl, int64_t>> arrays;
    for (const Reduce* r : chosen) {
      DType t = decls_.at(r->tensor).dtype;
      std::string slots = freshName(r->tensor + "_tree", taken_);
      TensorDecl decl{slots, t, {n}, MemKind::GpuShared};
      arrays.push_back({decl, n});
      shared += n * bytes(t);
      ExprP slot = sub(var(f.var), intConst(b));
      loop = redirect(loop, *r, slots, slot);
      // Each slot starts at the identity, in the loop's own thread.
      auto& g = loop->as<For>();
      StmtP start = makeStore(slots, {slot}, identityOf(r->op, t), r->loc, StmtTag{slots + ".start", {f.var}, {var(f.var)}});
      loop = withBody(g, makeSeq({start, loopBody(g)}));
      // Halves: a power of two first, then down to one.
      int64_t p = 1;
      while (p * 2 <= n) p *= 2;
      std::vector<int64_t> steps;
      if (p < n) steps.push_back(p);  // fold n - p slots onto the first ones
      for (int64_t h = p / 2; h >= 1; h /= 2) steps.push_back(h);
      int64_t width = n;
      for (int64_t h : steps) {
        int64_t count = width - h;  // slots [0, count) take slot + h
        std::string v = freshName("teml_fold", taken_);
        ExprP x = load(slots, {var(v)}, t), y = load(slots, {add(var(v), intConst(h))}, t);
        StmtP fold = makeStore(slots, {var(v)}, binary(binaryOf(r->op), x, y), r->loc, StmtTag{v, {v}, {var(v)}});
        LoopKind kind;
        kind.scope = f.loopKind.scope;
        kind.independent = true;
        after.push_back(makeFor(v, v, intConst(0), intConst(count), 1, kind, fold, {},
                                Provenance{r->loc, "gpu_reduction_trees", f.id}));
        width = h;
      }
      after.push_back(makeReduce(r->op, r->tensor, r->indices, load(slots, {intConst(0)}, t), r->loc, r->tag));
    }
    StmtP out = makeSeq([&] {
      std::vector<StmtP> all{loop};
      all.insert(all.end(), after.begin(), after.end());
      return all;
    }());
    for (auto it = arrays.rbegin(); it != arrays.rend(); ++it) out = makeVarDef(it->first, out);
    return out;
  }

  // In `loop`, the reductions like `r` reduce into the thread's slot instead.
  static StmtP redirect(const StmtP& loop, const Reduce& r, const std::string& slots, const ExprP& slot) {
    struct Redirect : Mutator {
      const Reduce& r;
      const std::string& slots;
      const ExprP& slot;
      Redirect(const Reduce& r, const std::string& s, const ExprP& i) : r(r), slots(s), slot(i) {}
      StmtP mutateReduce(const StmtP& s) override {
        auto& x = s->as<Reduce>();
        if (x.tensor != r.tensor) return s;
        return std::make_shared<Reduce>(x.op, slots, std::vector<ExprP>{slot}, x.value, x.loc, x.tag, false, x.id, x.made);
      }
    };
    return Redirect(r, slots, slot).mutate(loop);
  }

  const Program& program_;
  const target::Target& target_;
  std::set<std::string> taken_;
  std::map<std::string, TensorDecl> decls_;
};

}  // namespace

StmtP sumInTrees(const StmtP& nest, const Program& program, const target::Target& target) {
  StmtP out = Trees(nest, program, target).run(nest);
  // The block's result meets other blocks' only where they share the element.
  return out == nest ? nest : atomicGpuReductions(out, program, target);
}

}  // namespace teml::lowering
