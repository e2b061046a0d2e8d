// Where each tensor a nest defines lives on the GPU. On the host (between
// kernels): global memory. In a kernel: a thread's own (gpu/local,
// registers where the indices are known) when only one thread's statements
// touch it, or when every thread computes it alike (a small tensor the
// block writes outside its thread loops), else the block's shared memory
// (filled with its first value explicitly: shared memory starts undefined).
// A tensor defined inside thread loops that inner thread loops write for
// one another is shared too, one copy per thread of the loops around it
// (FreeTensor's multiplex buffers: a warp's row of scores in a loop over
// threadIdx.y that its lanes fill). A gpu/global tensor defined inside a
// kernel is allocated by the host around it, a copy per block and thread of
// the loops around its definition (FreeTensor's), zeroed where it is
// defined. Each kernel's shared memory is
// checked against the GPU's limit and requested dynamically above the
// static one.
#include <map>
#include <optional>
#include <set>

#include "diag/diagnostics.hpp"
#include "ir/accesses.hpp"
#include "ir/mutator.hpp"
#include "ir/visitor.hpp"
#include "lowering/cuda/cuda_passes.hpp"
#include "lowering/cuda/gpu_thread_conflicts.hpp"

namespace teml::lowering {

using namespace ir;

namespace {

class GpuMemoryKinds : public Mutator {
 public:
  explicit GpuMemoryKinds(const target::Target& target) : target_(target) {}

 protected:
  StmtP mutateFor(const StmtP& s) override {
    auto& f = s->as<For>();
    bool root = !f.loopKind.kernel.name.empty();
    int64_t outerShared = shared_;
    bool outerIn = inKernel_;
    if (root) shared_ = 0, inKernel_ = true;
    if (f.loopKind.gpuThreads()) threadLoops_.push_back(&f);
    if (f.loopKind.gpuBlocks()) blockLoops_.push_back(&f);
    // A loop's local tensors are VarDefs inside it: they are decided in its body.
    StmtP out = Mutator::mutateFor(s);
    if (f.loopKind.gpuThreads()) threadLoops_.pop_back();
    if (f.loopKind.gpuBlocks()) blockLoops_.pop_back();
    if (!root) return out;
    inKernel_ = outerIn;
    auto& g = out->as<For>();
    LoopKind kind = g.loopKind;
    kind.kernel.sharedBytes = shared_;
    kind.kernel.dynamicShared = shared_ > target_.gpu.sharedBytes;
    if (shared_ > target_.gpu.sharedBytesOptIn)
      throw UserError(f.made.loc, "kernel '" + f.id + "' needs " + std::to_string(shared_) +
                                      " bytes of shared memory; a block of " + target_.gpu.arch() + " may have " +
                                      std::to_string(target_.gpu.sharedBytesOptIn));
    shared_ = outerShared;
    StmtP kernel = std::make_shared<For>(g.id, g.var, g.begin, g.end, g.step, kind, g.body, g.made);
    for (auto it = fromHost_.rbegin(); it != fromHost_.rend(); ++it)
      kernel = std::make_shared<VarDef>(it->decl, kernel, std::nullopt, it->id, it->made);
    fromHost_.clear();
    return kernel;
  }
  StmtP mutateVarDef(const StmtP& s) override {
    auto& v = s->as<VarDef>();
    StmtP body = mutate(v.body);
    TensorDecl decl = v.decl;
    std::optional<LoopLocal> local = v.loopLocal;
    if (decl.mem == MemKind::GpuGlobal && inKernel_ && !v.loopLocal) {
      // FreeTensor's global memory inside a kernel: allocated by the host
      // around the kernel, a copy per block and thread of the loops around
      // it, each starting from zeros where the program defines it.
      SourceLoc at = v.made.loc.line ? v.made.loc : sourceLocOf(body);
      std::vector<const For*> loops = blockLoops_;
      loops.insert(loops.end(), threadLoops_.begin(), threadLoops_.end());
      body = multiplex(v, &decl, &local, makeSeq({fill(decl, 0, at), body}), loops);
      fromHost_.push_back(VarDef(decl, nullptr, std::nullopt, v.id, v.made));
      return body;
    }
    if (decl.mem == MemKind::Auto || !isGpuMemory(decl.mem)) {
      if (!inKernel_) decl.mem = MemKind::GpuGlobal;
      else if (!threadLoops_.empty()) decl.mem = ownCopies(v);
      else if (!touchedByThreads(v) || computedByEveryThread(v)) decl.mem = MemKind::GpuLocal;
      else decl.mem = MemKind::GpuShared;
    } else {
      checkChosen(v);
    }
    if (decl.mem == MemKind::GpuShared) {
      SourceLoc at = v.made.loc.line ? v.made.loc : sourceLocOf(body);
      if (!(v.loopLocal && v.loopLocal->writtenBeforeRead))
        body = makeSeq({fill(decl, v.loopLocal ? v.loopLocal->init : 0, at), body});
      if (!threadLoops_.empty()) body = multiplex(v, &decl, &local, body, threadLoops_);
      shared_ += std::max<int64_t>(1, decl.elementCount()) * bytes(decl.dtype);
    }
    return std::make_shared<VarDef>(decl, body, local, v.id, v.made);
  }

 private:
  // Shared memory starts undefined: its first value, stored element by
  // element (gpu_barriers gives the store to thread 0 and a barrier after).
  StmtP fill(const TensorDecl& t, double init, SourceLoc loc) {
    std::vector<std::string> vars;
    std::vector<ExprP> at;
    for (size_t d = 0; d < t.shape.size(); ++d) {
      vars.push_back(t.name + "_fill" + std::to_string(d));
      at.push_back(var(vars.back()));
    }
    ExprP value = isIntegral(t.dtype) ? intConst(static_cast<int64_t>(init)) : floatConst(init, t.dtype);
    StmtP s = makeStore(t.name, at, value, loc, StmtTag{t.name + ".fill", vars, at});
    for (size_t d = t.shape.size(); d-- > 0;)
      s = makeFor(vars[d], vars[d], intConst(0), intConst(t.shape[d]), 1, LoopKind{}, s);
    return s;
  }
  // A memory type the program or its schedule chose fits where the tensor is defined.
  void checkChosen(const VarDef& v) const {
    std::string what = "'" + v.decl.name + "' is " + memKindName(v.decl.mem) + ", but ";
    if (v.decl.mem == MemKind::GpuShared && !inKernel_)
      throw UserError(v.made.loc, what + "it is defined outside every kernel (shared memory is a block's)");
    if (v.decl.mem == MemKind::GpuLocal && !inKernel_)
      throw UserError(v.made.loc, what + "it is defined outside every kernel (local memory is a thread's)");
    if (v.decl.mem == MemKind::GpuGlobal && inKernel_)
      throw UserError(v.made.loc, what + "it is defined inside a kernel; define it outside, or make it gpu/shared or gpu/local");
    if (v.decl.mem == MemKind::GpuLocal && inKernel_) checkOwnCopiesMeet(v, what);
  }
  // gpu/local outside a kernel's thread loops is a copy per thread. What
  // threads write there inside a thread loop is in their own copies, so a
  // statement outside every thread loop (which runs in each thread, or in
  // thread 0 alone) that reads it would see one thread's part only: a
  // wrong result, refused (a matrix product's tile of sums flushed after
  // the loop over k, with the sums in each thread's patch).
  static void checkOwnCopiesMeet(const VarDef& v, const std::string& what) {
    std::set<const Stmt*> inThreads;
    std::map<const Stmt*, const For*> loopOf;
    forEachStmt(v.body, [&](const StmtP& s) {
      if (s->kind != StmtKind::For || !s->as<For>().loopKind.gpuThreads() || inThreads.count(s.get())) return;
      forEachStmt(s, [&](const StmtP& t) {
        inThreads.insert(t.get());
        loopOf[t.get()] = &s->as<For>();
      });
    });
    const For* writer = nullptr;
    std::set<const For*> writers, touching;
    std::set<std::string> others;  // the tensors the question below leaves out
    for (auto& a : accessesOf(v.body)) {
      if (a.tensor != v.decl.name) others.insert(a.tensor);
      if (a.tensor != v.decl.name || !inThreads.count(a.stmt)) continue;
      touching.insert(loopOf.at(a.stmt));
      if (a.kind != AccessKind::Read) writers.insert(writer = loopOf.at(a.stmt));
    }
    if (!writer) return;
    // Inside thread loops, each element must be read by the thread that wrote it.
    for (const For* w : writers)
      for (const For* t : touching)
        if (threadsMayMeet(w->self(), t->self(), others))
          throw UserError(sourceLocOf(t->self()),
                          what + "each thread has its own copy of it, and teml cannot show that a thread of this "
                                 "loop touches only elements its own thread wrote in loop '" + w->var + "' (line " +
                              std::to_string(sourceLocOf(w->self()).line) +
                              "); make it gpu/shared, or index it by the same thread index in both loops");
    for (auto& a : accessesOf(v.body)) {
      if (a.tensor != v.decl.name || a.kind == AccessKind::Store || inThreads.count(a.stmt)) continue;
      SourceLoc at = sourceLocOf(a.stmt->self());  // a cache's flush has none: where the tensor is used
      throw UserError(at.line ? at : sourceLocOf(v.self()),
                      what + "each thread writes its own copy of it inside loop '" + writer->var + "' (bound to " +
                          parallelScopeName(writer->loopKind.scope) +
                          "), and this statement reads it outside the thread loops, where a thread's copy lacks "
                          "the others' values; make it gpu/shared, or read it inside the same thread loops");
    }
  }
  // A small tensor of the block that its thread loops only read: each
  // thread keeps its own copy and runs the block's statements that write
  // it (all threads read the same inputs there, so the copies agree), with
  // no store by thread 0 and no barrier before the threads read it (GAT's
  // weight of an edge, read by the threads of its features).
  // The statements that write it must run in every thread: outside thread
  // loops, and writing nothing else the block shares (gpu_barriers gives
  // such a statement to thread 0 alone).
  static bool computedByEveryThread(const VarDef& v) {
    constexpr int64_t kMostElements = 16;  // registers, not a block's worth of local memory
    return v.decl.elementCount() <= kMostElements && writtenByEveryThread(v);
  }
  // A tensor defined inside a thread loop is each thread's own; where thread
  // loops inside it (another thread index) touch it, their threads share
  // what the one outside computed, which is right only where every thread
  // computes it alike; else it is shared, a copy per thread outside (multiplex).
  MemKind ownCopies(const VarDef& v) const {
    if (!touchedByThreads(v) || writtenByEveryThread(v)) return MemKind::GpuLocal;
    return MemKind::GpuShared;
  }
  // `decl` gains a leading dimension per thread loop around it (and a
  // loop-local's box, which its shape equals, likewise), and every access
  // in `body` the index of its thread there: threads of those loops keep
  // apart copies, those of the loops inside share one.
  StmtP multiplex(const VarDef& v, TensorDecl* decl, std::optional<LoopLocal>* local, const StmtP& body,
                  const std::vector<const For*>& loops) const {
    std::vector<ExprP> copy;
    std::vector<int64_t> shape;
    for (const For* f : loops) {
      bool known = false;
      int64_t copies = mostIterations(*f, &known);
      if (!known || f->step <= 0)
        throw UserError(v.made.loc, "'" + v.decl.name + "' needs a copy in " + memKindName(decl->mem) +
                                        " for each iteration of loop '" +
                                        f->id + "' (bound to " + parallelScopeName(f->loopKind.scope) +
                                        "), whose count is not a constant; define it outside '" + f->id +
                                        "' or give the loop constant bounds");
      copy.push_back(floorDiv(sub(var(f->var), f->begin), intConst(f->step)));
      shape.push_back(copies);
    }
    if (*local && (*local)->boxed) {
      Box& box = (*local)->box;
      box.offset.insert(box.offset.begin(), copy.size(), intConst(0));
      box.extent.insert(box.extent.begin(), shape.begin(), shape.end());
    }
    shape.insert(shape.end(), decl->shape.begin(), decl->shape.end());
    decl->shape = shape;
    return PrependIndices(decl->name, copy).mutate(body);
  }
  struct PrependIndices : Mutator {
    const std::string& tensor;
    const std::vector<ExprP>& lead;
    PrependIndices(const std::string& t, const std::vector<ExprP>& l) : tensor(t), lead(l) {}
    std::vector<ExprP> widened(const std::vector<ExprP>& indices) const {
      std::vector<ExprP> out = lead;
      out.insert(out.end(), indices.begin(), indices.end());
      return out;
    }
    ExprP mutateLoad(const ExprP& e) override {
      ExprP m = Mutator::mutateLoad(e);
      auto& l = m->as<Load>();
      return l.tensor == tensor ? load(l.tensor, widened(l.indices), l.dtype) : m;
    }
    StmtP mutateStore(const StmtP& s) override {
      StmtP m = Mutator::mutateStore(s);
      auto& st = m->as<Store>();
      if (st.tensor != tensor) return m;
      return std::make_shared<Store>(st.tensor, widened(st.indices), st.value, st.loc, st.tag, st.id, st.made);
    }
    StmtP mutateReduce(const StmtP& s) override {
      StmtP m = Mutator::mutateReduce(s);
      auto& r = m->as<Reduce>();
      if (r.tensor != tensor) return m;
      return std::make_shared<Reduce>(r.op, r.tensor, widened(r.indices), r.value, r.loc, r.tag, r.atomic, r.id, r.made);
    }
  };
  static bool writtenByEveryThread(const VarDef& v) {
    struct Writers : Visitor {
      const std::string& name;
      bool everyThread = true;
      explicit Writers(const std::string& n) : name(n) {}
      using Visitor::visit;
      void visit(const ExprP&) override {}
      void visit(const StmtP& s) override {
        if (hasLoop(s, &LoopKind::gpuThreads)) {
          if (s->kind == StmtKind::For && s->as<For>().loopKind.gpuThreads()) everyThread = everyThread && !tensorsWritten(s).count(name);
          else Visitor::visit(s);
          return;
        }
        // A statement of the block: everything it writes is its own or this tensor.
        auto written = tensorsWritten(s);
        if (!written.count(name)) return;
        std::set<std::string> own;
        forEachStmt(s, [&](const StmtP& t) {
          if (t->kind == StmtKind::VarDef) own.insert(t->as<VarDef>().decl.name);
        });
        for (auto& t : written) everyThread = everyThread && (t == name || own.count(t));
      }
    } writers(v.decl.name);
    writers.visit(v.body);
    return writers.everyThread;
  }
  static bool touchedByThreads(const VarDef& v) {
    bool found = false;
    forEachStmt(v.body, [&](const StmtP& t) {
      if (t->kind == StmtKind::For && t->as<For>().loopKind.gpuThreads() && tensorsAccessed(t).count(v.decl.name))
        found = true;
    });
    return found;
  }

  const target::Target& target_;
  int64_t shared_ = 0;
  bool inKernel_ = false;
  std::vector<const For*> threadLoops_;  // the thread loops around, outermost first
  std::vector<const For*> blockLoops_;   // the kernel's loops bound to blockIdx around
  std::vector<VarDef> fromHost_;         // global tensors of the kernel, defined around it
};

}  // namespace

StmtP chooseGpuMemoryKinds(const StmtP& nest, const Program&, const target::Target& target) {
  return GpuMemoryKinds(target).mutate(nest);
}

}  // namespace teml::lowering
