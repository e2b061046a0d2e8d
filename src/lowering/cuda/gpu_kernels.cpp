// Kernels from a scheduled nest. The host runs what is outside loops bound
// to blockIdx: loops and branches around kernels, whose bounds and
// conditions may not read tensors (they live on the GPU). Every other
// statement of the host becomes a kernel of one thread, and a loop bound to
// threadIdx alone a kernel of one block, so that every access to data
// happens on the GPU; so does the scope of a gpu/shared tensor defined
// outside the loops bound to blockIdx, around thread loops, whole. Each
// kernel's outermost loop gets its plan: its
// threads per block, from the trip counts of its loops bound to threadIdx
// (gpu_barriers then orders the block's statements).
#include <algorithm>

#include "diag/diagnostics.hpp"
#include "ir/affine.hpp"
#include "ir/visitor.hpp"
#include "ir/accesses.hpp"
#include "ir/fresh_name.hpp"
#include "ir/functor.hpp"
#include "ir/mutator.hpp"
#include "lowering/cuda/cuda_passes.hpp"

namespace teml::lowering {

using namespace ir;

namespace {

bool hasGpuLoop(const StmtP& s) { return hasLoop(s, &LoopKind::gpu); }

bool readsData(const ExprP& e) { return e && !readsOf(e).empty(); }

class Kernels : StmtFunctor<StmtP()> {
 public:
  Kernels(const StmtP& nest, const target::Target& target) : target_(target) {
    forEachStmt(nest, [&](const StmtP& s) {
      if (s->kind == StmtKind::For) taken_.insert(s->as<For>().var);
      taken_.insert(s->id);
    });
  }

  // A statement of the host: kernels stay, loops and branches around
  // kernels are kept when the host can run them, the rest is wrapped.
  StmtP host(const StmtP& s) { return dispatch(s); }

 protected:
  StmtP visitSeq(const Seq& q) override {
    std::vector<StmtP> out, pending;  // statements for one kernel of one thread
    auto flush = [&] {
      if (!pending.empty()) out.push_back(oneThread(makeSeq(pending)));
      pending.clear();
    };
    for (auto& t : q.stmts) {
      if (hasGpuLoop(t)) {
        flush();
        out.push_back(host(t));
      } else {
        pending.push_back(t);
      }
    }
    flush();
    return makeSeq(out);
  }
  StmtP visitFor(const For& f) override {
    StmtP s = f.self();
    if (f.loopKind.gpuBlocks()) return kernel(f);
    if (f.loopKind.gpuThreads()) return kernel(wrapInLoop(s, "teml_block", ParallelScope::BlockX)->as<For>());
    if (!hasGpuLoop(s)) return oneThread(s);
    if (readsData(f.begin) || readsData(f.end))
      throw UserError(sourceLocOf(s), "the bounds of loop '" + f.var +
                                          "' read tensors, which live on the GPU, and the loop has kernels inside; bind "
                                          "it to blockIdx or threadIdx, or move the kernels out of it");
    return withBody(f, host(loopBody(f)));
  }
  StmtP visitIf(const If& i) override {
    StmtP s = i.self();
    if (!hasGpuLoop(s)) return oneThread(s);
    if (readsData(i.cond))
      throw UserError(sourceLocOf(s), "a branch whose condition reads tensors (which live on the GPU) has kernels inside; "
                                      "move the condition into the kernels");
    return std::make_shared<If>(i.cond, host(i.then), i.otherwise ? host(i.otherwise) : nullptr, i.id, i.made);
  }
  StmtP visitVarDef(const VarDef& v) override {
    if (!hasGpuLoop(v.self())) return oneThread(v.self());
    // A block's shared tensor defined around thread loops, outside every
    // loop bound to blockIdx: its whole scope is one kernel of one block,
    // so that the loops share it (FreeTensor's test_shmem_scalar).
    if (v.decl.mem == MemKind::GpuShared && !hasLoop(v.self(), &LoopKind::gpuBlocks))
      return kernel(wrapInLoop(v.self(), "teml_block", ParallelScope::BlockX)->as<For>());
    return std::make_shared<VarDef>(v.decl, host(v.body), v.loopLocal, v.id, v.made);
  }
  StmtP visitAssert(const Assert& a) override {
    if (!hasGpuLoop(a.self()) || readsData(a.cond) || readsData(a.shown)) return oneThread(a.self());
    return std::make_shared<Assert>(a.cond, a.message, a.shown, a.loc, host(a.body), a.id, a.made);
  }
  StmtP visitLibCall(const LibCall& c) override { return c.self(); }  // cuBLAS, called by the host
  StmtP visitStore(const Store& st) override { return oneThread(st.self()); }
  StmtP visitReduce(const Reduce& r) override { return oneThread(r.self()); }
  StmtP visitBarrier(const Barrier& b) override { return oneThread(b.self()); }
  StmtP visitExchange(const Exchange& x) override { return x.self(); }

 private:
  StmtP wrapInLoop(const StmtP& s, const std::string& base, ParallelScope scope) {
    LoopKind kind;
    kind.scope = scope;
    kind.independent = true;  // one iteration
    std::string name = freshName(base, taken_);
    return makeFor(name, name, intConst(0), intConst(1), 1, kind, s, {}, Provenance{sourceLocOf(s), "gpu_kernels", ""});
  }
  StmtP oneThread(const StmtP& s) { return kernel(wrapInLoop(replaceLibCalls(s), "teml_thread", ParallelScope::BlockX)->as<For>()); }

  static StmtP replaceLibCalls(const StmtP& s) {
    struct Replace : Mutator {
      StmtP mutateLibCall(const StmtP& s) override { return mutate(s->as<LibCall>().reference); }
    };
    return Replace().mutate(s);
  }

  // A kernel's outermost loop with its plan; its statements checked.
  StmtP kernel(const For& root) {
    std::vector<const For*> blocks{&root};
    while (true) {
      const StmtP& body = loopBody(*blocks.back());
      if (body->kind != StmtKind::For || !body->as<For>().loopKind.gpuBlocks()) break;
      blocks.push_back(&body->as<For>());
    }
    const StmtP& inner = loopBody(*blocks.back());
    for (auto* b : blocks)
      if (readsData(b->begin) || readsData(b->end))
        throw UserError(sourceLocOf(b->self()), "the bounds of loop '" + b->var + "', bound to " +
                                              parallelScopeName(b->loopKind.scope) +
                                              ", read tensors: a grid's size is fixed when the kernel starts");
    GpuKernelPlan plan;
    plan.name = root.id;
    ThreadCounts counts(&plan);
    for (auto* b : blocks) rangeOf(*b, &counts.ranges);
    counts.visit(inner);
    int64_t threads = plan.blockDim[0] * plan.blockDim[1] * plan.blockDim[2];
    if (threads > target_.gpu.maxThreadsPerBlock)
      throw UserError(sourceLocOf(root.self()), "kernel '" + root.id + "' has " + std::to_string(plan.blockDim[0]) + " x " +
                                              std::to_string(plan.blockDim[1]) + " x " + std::to_string(plan.blockDim[2]) +
                                              " threads per block; a block of " + target_.gpu.arch() + " has at most " +
                                              std::to_string(target_.gpu.maxThreadsPerBlock));
    LoopKind kind = root.loopKind;
    kind.kernel = plan;
    return std::make_shared<For>(root.id, root.var, root.begin, root.end, root.step, kind, root.body, root.made);
  }

  // The threads a loop bound to threadIdx needs: its trip count, or where
  // that depends on the loops around (`for j in range(i)` inside a loop on
  // threadIdx.x), the largest it takes over their ranges, as FreeTensor
  // sizes such a block; the threads past an iteration's count stay idle
  // (each thread loop runs where its index is below its count).
  static int64_t mostThreads(const For& f, const Ranges& ranges) {
    bool known = false;
    int64_t n = mostIterations(f, &known);
    if (known) return n;
    Interval span;
    if (f.step > 0 && bounds(sub(f.end, f.begin), ranges, &span))
      return span.hi <= 0 ? 0 : (span.hi + f.step - 1) / f.step;
    throw UserError(sourceLocOf(f.self()), "loop '" + f.var + "', bound to " + parallelScopeName(f.loopKind.scope) +
                                           ", needs a trip count bounded when the kernel starts: a block's threads are "
                                           "fixed then (its bounds read data or loops of unknown range; split the loop "
                                           "by a constant and bind the inner one)");
  }
  // `f`'s iterator's range into `ranges`, where its bounds have ranges there.
  static void rangeOf(const For& f, Ranges* ranges) {
    Interval b, e;
    if (f.step > 0 && bounds(f.begin, *ranges, &b) && bounds(f.end, *ranges, &e) && b.lo < e.hi)
      (*ranges)[f.var] = Interval{b.lo, e.hi - 1};
  }
  // The block's threads in each dimension: the most any loop bound there needs.
  struct ThreadCounts : Visitor {
    GpuKernelPlan* plan;
    Ranges ranges;  // of the loops around, where their bounds have ranges
    explicit ThreadCounts(GpuKernelPlan* p) : plan(p) {}
    using Visitor::visit;
    void visitFor(const For& f) override {
      if (f.loopKind.gpuBlocks())
        throw UserError(sourceLocOf(f.self()), "loop '" + f.var + "' is bound to " + parallelScopeName(f.loopKind.scope) +
                                               " but is not directly inside the kernel's other loops bound to blockIdx");
      if (f.loopKind.gpuThreads()) {
        int d = gpuDimension(f.loopKind.scope);
        plan->blockDim[d] = std::max(plan->blockDim[d], mostThreads(f, ranges));
      }
      Ranges outer = ranges;
      rangeOf(f, &ranges);
      Visitor::visitFor(f);
      ranges = outer;
    }
  };

  const target::Target& target_;
  std::set<std::string> taken_;
};

}  // namespace

StmtP makeKernels(const StmtP& nest, const Program&, const target::Target& target) {
  return Kernels(nest, target).host(nest);
}

}  // namespace teml::lowering
