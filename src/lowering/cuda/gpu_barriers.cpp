// Guards and barriers in the blocks of each kernel. A statement outside
// the kernel's thread loops runs in every thread of the block; one that
// writes memory the threads share (gpu/shared, gpu/global) runs in thread
// 0 alone, inside loops of one iteration bound to threadIdx (a guard;
// gpu_guards makes them, and deals a cache's copy to the threads instead).
// Then, in each sequence of statements at block level (where control is
// the same in every thread), a barrier goes before a statement that may
// touch an element another thread touched since the last barrier, one of
// them writing; and at the end of a loop's body where its next iteration
// may touch what this one did. __syncwarp where the block is one warp,
// else __syncthreads. Whether threads may meet at an element in two
// statements is gpu_thread_conflicts' question. Inside a loop over
// threadIdx.y or .z whose every iteration is one warp (blockDim.x is 32),
// the warp's statements are ordered likewise with __syncwarp, where the
// threads that meet are of one warp; inside one whose count is the block's
// (every thread runs it once), with the block's barrier.
#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "diag/diagnostics.hpp"
#include "ir/accesses.hpp"
#include "ir/functor.hpp"
#include "ir/mutator.hpp"
#include "lowering/cuda/cuda_passes.hpp"
#include "lowering/cuda/gpu_guards.hpp"
#include "lowering/cuda/gpu_thread_conflicts.hpp"

namespace teml::lowering {

using namespace ir;

namespace {

bool hasThreadLoop(const StmtP& s) { return hasLoop(s, &LoopKind::gpuThreads); }

class Barriers : StmtFunctor<StmtP()> {
 public:
  Barriers(const StmtP& nest, const target::Target& target) : target_(target) {
    forEachStmt(nest, [&](const StmtP& s) {
      if (s->kind == StmtKind::For) taken_.insert(s->as<For>().var);
      if (s->kind == StmtKind::VarDef && s->as<VarDef>().decl.mem == MemKind::GpuLocal)
        private_.insert(s->as<VarDef>().decl.name);
    });
  }

  StmtP host(const StmtP& s) {
    return eachKernel(s, [&](const For& f) { return kernel(f); });
  }

 private:
  StmtP kernel(const For& root) {
    const GpuKernelPlan& plan = root.loopKind.kernel;
    for (int d = 0; d < 3; ++d) blockDim_[d] = plan.blockDim[d];
    int64_t threads = plan.blockDim[0] * plan.blockDim[1] * plan.blockDim[2];
    if (threads == 1) return root.self();  // one thread: nothing to guard or wait for
    scope_ = threads <= target_.gpu.warpSize ? BarrierScope::Warp : BarrierScope::Block;
    kernelLoc_ = root.made.loc;
    return blocks(root);
  }
  // The loops bound to blockIdx, then the block's statements.
  StmtP blocks(const For& f) {
    const StmtP& body = loopBody(f);
    if (body->kind == StmtKind::For && body->as<For>().loopKind.gpuBlocks()) return withBody(f, blocks(body->as<For>()));
    return withBody(f, blockLevel(body));
  }

  StmtP blockLevel(const StmtP& s) {
    if (!warpLoop_.empty() && !hasThreadLoop(s)) return s;  // guarded where it must be by guardUnboundIndices
    if (!hasThreadLoop(s)) {
      if (!writesShared(s)) return s;  // each thread computes its own
      if (StmtP shared = guards().cooperativeCopy(s)) return shared;
      return guards().inThreadZero(s);
    }
    return dispatch(s);
  }

 protected:
  StmtP visitFor(const For& f) override {
    if (f.loopKind.gpuThreads()) {
      if (!warpLoop_.empty()) {  // a loop of a warp's lanes
        if (warpsInsideABlockWideLoop(f)) return nestedWarpLoop(f);
        refuseInsideThreads(f.self());
        return f.self();
      }
      StmtP guarded = guardUnboundIndices(f.self());
      if (eachIterationAWarp(f)) return threadLoopLevel(guarded->as<For>());
      if (blockWideLoop(f)) return threadLoopLevel(guarded->as<For>(), true);
      refuseInsideThreads(guarded);
      return guarded;
    }
    bool uniform = uniformLoop(f);
    // a barrier at the end of the body is inside the loop too
    if (!uniform) divergent_.push_back("loop '" + f.var + "' (line " + std::to_string(f.made.loc.line) + ")");
    StmtP body = blockLevel(loopBody(f));
    // Its next iteration after this one: what runs after the body's
    // last barrier, then what runs before its first.
    Parts parts = partsOf(body);
    bool carried = false;
    for (auto& a : parts.tail)
      for (auto& b : parts.head) carried = carried || needsBarrier(a, b, f.var);  // f's iterator differs between them
    if (!uniform) divergent_.pop_back();
    if (carried) body = makeSeq({body, barrier(f.made.loc)});
    return withBody(f, body);
  }
  StmtP visitSeq(const Seq& q) override {
    // `since`: what ran since the last barrier. A statement with
    // barriers of its own meets it only with what runs before its first
    // one, and leaves behind only what runs after its last.
    std::vector<StmtP> out, since;
    for (auto& item : q.stmts) {
      StmtP t = blockLevel(item);
      Parts parts = partsOf(t);
      bool wait = false;
      for (auto& p : since)
        for (auto& h : parts.head) wait = wait || needsBarrier(p, h);
      if (wait) {
        out.push_back(barrier(sourceLocOf(t)));
        since.clear();
      }
      out.push_back(t);
      if (parts.barriers) since = parts.tail;
      else since.push_back(t);
    }
    return makeSeq(out);
  }
  StmtP visitIf(const If& i) override {
    if (everyIterationInScope_ && divergent_.empty() && !readsWhatItWrites(i.cond, i.then) &&
        !(i.otherwise && readsWhatItWrites(i.cond, i.otherwise)))
      return splitAroundBarriers(i);
    divergent_.push_back("the branch at line " + std::to_string(sourceLocOf(i.self()).line));
    StmtP then = afterCondition(i, blockLevel(i.then));
    StmtP otherwise = i.otherwise ? afterCondition(i, blockLevel(i.otherwise)) : nullptr;
    divergent_.pop_back();
    return std::make_shared<If>(i.cond, then, otherwise, i.id, i.made);
  }
  // Every thread reads the condition before it takes the branch: a branch
  // that writes what the condition reads (thread 0's `z[0] = 1` after
  // `if z[0] > 0`) first waits for every thread to have read it (fuzz seed
  // 4292: the emulator saw thread 1 read z[0] after thread 0 wrote it).
  StmtP afterCondition(const If& i, const StmtP& branch) {
    StmtP reads = std::make_shared<Assert>(i.cond, "", nullptr, sourceLocOf(i.self()), makeSeq({}));
    for (auto& h : partsOf(branch).head)
      if (needsBarrier(reads, h)) return makeSeq({barrier(sourceLocOf(i.self())), branch});
    return branch;
  }
  StmtP visitVarDef(const VarDef& v) override {
    return std::make_shared<VarDef>(v.decl, blockLevel(v.body), v.loopLocal, v.id, v.made);
  }
  StmtP visitAssert(const Assert& a) override {
    if (everyIterationInScope_ && divergent_.empty() && !readsWhatItWrites(a.cond, a.body)) {
      int piece = 0;
      return liftBarriers(blockLevel(a.body), [&](const std::vector<StmtP>& stmts) {
        return std::make_shared<Assert>(a.cond, a.message, a.shown, a.loc, makeSeq(stmts), pieceId(a.id, piece++), a.made);
      });
    }
    // a failed check skips its body in the threads that fail it
    divergent_.push_back("the run-time check at line " + std::to_string(a.loc.line));
    StmtP body = blockLevel(a.body);
    divergent_.pop_back();
    return std::make_shared<Assert>(a.cond, a.message, a.shown, a.loc, body, a.id, a.made);
  }
  StmtP visitStore(const Store& st) override { return st.self(); }
  StmtP visitReduce(const Reduce& r) override { return r.self(); }
  StmtP visitLibCall(const LibCall& c) override { return c.self(); }
  StmtP visitBarrier(const Barrier& b) override { return b.self(); }
  StmtP visitExchange(const Exchange& x) override { return x.self(); }

 private:

  // The statements of a block-level statement in order, through its
  // sequences, tensor definitions and run-time checks (a failed one ends
  // the run with an error, so what follows need not be ordered then):
  // those before its first barrier, those after its last, and whether it
  // has one. In a block of one warp, a loop
  // over threadIdx.y or .z that every thread runs once counts through its
  // body too, each of its statements inside a copy of the loop: its
  // barriers are the block's.
  struct Parts {
    std::vector<StmtP> head, tail;
    bool barriers = false;
  };
  Parts partsOf(const StmtP& s) const {
    std::vector<StmtP> leaves;
    const For* around = nullptr;  // such a loop, while its body is flattened
    std::function<void(const StmtP&)> flatten = [&](const StmtP& t) {
      if (t->kind == StmtKind::Seq) {
        for (auto& u : t->as<Seq>().stmts) flatten(u);
      } else if (t->kind == StmtKind::VarDef) {
        flatten(t->as<VarDef>().body);
      } else if (t->kind == StmtKind::Assert && hasBarrier(t)) {
        auto& a = t->as<Assert>();  // its condition's reads, then its body
        flatten(std::make_shared<Assert>(a.cond, a.message, a.shown, a.loc, makeSeq({}), a.id, a.made));
        flatten(a.body);
      } else if (!around && t->kind == StmtKind::For && t->as<For>().loopKind.gpuThreads() &&
                 (everyThreadOfOneWarp(t->as<For>()) || blockWideLoop(t->as<For>()))) {
        around = &t->as<For>();
        flatten(loopBody(*around));
        around = nullptr;
      } else {
        leaves.push_back(around && t->kind != StmtKind::Barrier ? withBody(*around, t) : t);
      }
    };
    flatten(s);
    Parts p;
    for (auto& l : leaves) {
      if (l->kind == StmtKind::Barrier) {
        p.barriers = true;
        p.tail.clear();
      } else {
        (p.barriers ? p.tail : p.head).push_back(l);
      }
    }
    if (!p.barriers) p.tail = p.head;
    return p;
  }

  // A loop over threadIdx.y or .z whose iterations a warp's barrier may
  // order: in a block whose rows are warps (blockDim.x is the warp size)
  // each iteration's threads are one warp; in a block of one warp, a loop
  // that every thread runs once (its count is the block's) has all its
  // iterations in the warp.
  bool eachIterationAWarp(const For& f) const {
    if (f.loopKind.scope != ParallelScope::ThreadY && f.loopKind.scope != ParallelScope::ThreadZ) return false;
    int other = f.loopKind.scope == ParallelScope::ThreadY ? 2 : 1;  // its threads of the other index run it too
    bool rowsAreWarps = blockDim_[0] == target_.gpu.warpSize && blockDim_[other] == 1;
    return (rowsAreWarps && !isGuardLoop(&f)) || everyThreadOfOneWarp(f);
  }
  bool everyThreadOfOneWarp(const For& f) const { return scope_ == BarrierScope::Warp && coversTheBlock(f); }
  bool coversTheBlock(const For& f) const {
    int64_t b = 0, e = 0;
    return f.step == 1 && constValue(f.begin, &b) && constValue(f.end, &e) &&
           e - b == blockDim_[gpuDimension(f.loopKind.scope)] && e - b > 1;
  }
  // A loop over threadIdx.y or .z whose count is the block's: every thread
  // runs it once, so a barrier of the whole block in its body (outside
  // loops and branches that differ between its iterations) is reached by
  // every thread, as FreeTensor's __syncthreads inside such a loop is.
  bool everyThreadOnce(const For& f) const {
    return (f.loopKind.scope == ParallelScope::ThreadY || f.loopKind.scope == ParallelScope::ThreadZ) &&
           coversTheBlock(f);
  }
  // In a block-wide loop over threadIdx.z (.y) of a block whose rows are
  // warps (blockDim.x is 32), a loop over threadIdx.y (.z) that covers its
  // dimension: each of its iterations, with the outer loop's, is one warp,
  // which a warp's barrier orders (FreeTensor's
  // test_syncthreads_no_need_to_split_branch_warp, tests/cuda/67).
  bool warpsInsideABlockWideLoop(const For& f) const {
    if (scope_ != BarrierScope::Block || !everyIterationInScope_ || !divergent_.empty() || isGuardLoop(&f)) return false;
    ParallelScope inner = f.loopKind.scope;
    bool crossed = (inner == ParallelScope::ThreadY && warpScope_ == ParallelScope::ThreadZ) ||
                   (inner == ParallelScope::ThreadZ && warpScope_ == ParallelScope::ThreadY);
    return crossed && blockDim_[0] == target_.gpu.warpSize && coversTheBlock(f);
  }
  StmtP nestedWarpLoop(const For& f) {
    auto outer = std::tuple(warpLoop_, warpScope_, scope_, everyIterationInScope_, divergent_, insideWarp_);
    StmtP out = threadLoopLevel(f);
    std::tie(warpLoop_, warpScope_, scope_, everyIterationInScope_, divergent_, insideWarp_) = outer;
    return out;
  }
  // One whose barriers are the block's (a warp's where each iteration is a warp).
  bool blockWideLoop(const For& f) const { return everyThreadOnce(f) && !eachIterationAWarp(f); }
  // The body of such a loop ordered as a block's statements are, with
  // __syncwarp: every lane of the warp reaches it (its control is the
  // warp's), and threads of other warps work on other iterations. With
  // `blockWide` (everyThreadOnce), with the kernel's barrier: every thread
  // of the block runs the body once.
  StmtP threadLoopLevel(const For& f, bool blockWide = false) {
    BarrierScope outer = scope_;
    everyIterationInScope_ = blockWide || everyThreadOfOneWarp(f);
    if (!blockWide) scope_ = BarrierScope::Warp;
    warpLoop_ = f.var;
    warpScope_ = f.loopKind.scope;
    auto outerDivergent = std::exchange(divergent_, {});
    forEachStmt(f.body, [&](const StmtP& t) {
      if (t->kind == StmtKind::VarDef) insideWarp_.insert(t->as<VarDef>().decl.name);
    });
    StmtP body = blockLevel(loopBody(f));
    warpLoop_.clear();
    insideWarp_.clear();
    scope_ = outer;
    everyIterationInScope_ = false;
    divergent_ = outerDivergent;
    return withBody(f, body);
  }
  // A barrier between `a` and `b` (see conflict). Inside a warp's loop
  // the threads that meet must be of one warp: the loop's iterations
  // touch other elements, or the schedule is refused.
  bool needsBarrier(const StmtP& a, const StmtP& b, const std::string& varying = "") const {
    if (!threadsMayMeet(a, b, private_, varying)) return false;
    if (everyIterationInScope_ && !divergent_.empty())  // iterations of the loop may take other paths through it
      throw UserError(sourceLocOf(b), "this statement and the one at line " + std::to_string(sourceLocOf(a).line) +
                                          " need a barrier between them inside " + divergent_.front() +
                                          ", within loop '" + warpLoop_ + "', whose iterations (threads of the " +
                                          (scope_ == BarrierScope::Warp ? "warp" : "block") +
                                          ") may take it apart (its count or condition reads data or '" + warpLoop_ +
                                          "'), so not all of them would reach the barrier; move them out of it" +
                                          (scope_ == BarrierScope::Warp ? ", or make each iteration a warp (blockDim.x of 32)" : ""));
    if (everyIterationInScope_) return true;  // threads of every iteration are in the warp or block the barrier orders
    if (!warpLoop_.empty() && acrossWarps(a, b))
      throw UserError(sourceLocOf(b), "this statement and the one at line " + std::to_string(sourceLocOf(a).line) +
                                          " need a barrier between them, and threads of different iterations of loop '" +
                                          warpLoop_ + "' (different warps) may touch the same element; a warp's "
                                          "barrier does not order them");
    return true;
  }
  // May threads of different iterations of the warp loop (different warps)
  // touch one element in `a` and `b`, one of them writing? For a tensor
  // defined outside the loop, no: the dependence analysis admitted the loop
  // on threads (its iterations meet only in atomic updates). For one
  // defined inside, each iteration's copy is apart where some subscript of
  // both accesses is the same function of the loop's iterator (with nothing
  // else that varies between threads): a multiplexed copy's first index.
  bool acrossWarps(const StmtP& a, const StmtP& b) const {
    return warpsMayMeet(a, b, private_, insideWarp_, warpLoop_);
  }

  // Inside thread loops that leave a thread index of the block unbound (a
  // 2-D block's loop over threadIdx.x alone; a warp's statements in a loop
  // over threadIdx.y, outside its lanes' loop), a write to what threads
  // share runs where that index is 0, as a block's statement runs in
  // thread 0: each element written once, not once per thread.
  StmtP guardUnboundIndices(const StmtP& loop) {
    struct Unbound : Mutator {
      Barriers& b;
      std::vector<bool> bound{false, false, false};
      explicit Unbound(Barriers& b) : b(b) {}
      StmtP mutateFor(const StmtP& s) override {
        auto& f = s->as<For>();
        if (!f.loopKind.gpuThreads()) return Mutator::mutateFor(s);
        int d = gpuDimension(f.loopKind.scope);
        bool outer = bound[d];
        bound[d] = true;
        StmtP out = Mutator::mutateFor(s);
        bound[d] = outer;
        return out;
      }
      StmtP leaf(const StmtP& s) {
        bool every = true;
        for (int d = 0; d < 3; ++d) every = every && (bound[d] || b.blockDim_[d] == 1);
        return every || !b.writesShared(s) ? s : b.guards().inThreadZero(s, bound);
      }
      StmtP mutateStore(const StmtP& s) override { return leaf(s); }
      StmtP mutateReduce(const StmtP& s) override { return leaf(s); }
      StmtP mutateLibCall(const StmtP& s) override { return leaf(s); }
    };
    return Unbound(*this).mutate(loop);
  }

  // Inside a thread loop, not every thread may reach a barrier: where two
  // statements there would need one, the schedule is refused.
  void refuseInsideThreads(const StmtP& loop) {
    forEachStmt(loopBody(loop->as<For>()), [&](const StmtP& s) {
      if (s->kind != StmtKind::Seq) return;
      auto& q = s->as<Seq>().stmts;
      for (size_t a = 0; a < q.size(); ++a)
        for (size_t b = a + 1; b < q.size(); ++b)
          if ((hasThreadLoop(q[a]) || hasThreadLoop(q[b])) && threadsMayMeet(q[a], q[b], private_))
            throw UserError(sourceLocOf(q[b]), "this statement and the one at line " + std::to_string(sourceLocOf(q[a]).line) +
                                             " need a barrier between them (threads touch each other's elements), "
                                             "and they are inside loop '" + loop->as<For>().var + "', bound to " +
                                             parallelScopeName(loop->as<For>().loopKind.scope) +
                                             ", which not every thread may run; bind them to threads of the same loops");
    });
  }

  // A branch of a loop every thread of the barrier's scope runs once (a
  // block-wide or one-warp loop), ordered like the block's statements, then
  // split at its barriers as FreeTensor does: `if c: A; B else: C` with a
  // barrier between A and B becomes `if c: A else: C`, the barrier, `if c:
  // B`, which every thread reaches. Right where c reads nothing the
  // branches write (each piece evaluates it again). Where an arm keeps a
  // barrier in a loop (liftBarriers), the arms run one after the other,
  // the else arm under `not c`: threads of other iterations of the loop
  // never meet (the loop's iterations are independent), so only the
  // barriers' count must agree.
  StmtP splitAroundBarriers(const If& i) {
    StmtP then = blockLevel(i.then), otherwise = i.otherwise ? blockLevel(i.otherwise) : nullptr;
    int piece = 0;
    auto when = [&](const ExprP& cond) {
      return [&, cond](const std::vector<StmtP>& stmts) {
        return std::make_shared<If>(cond, makeSeq(stmts), nullptr, pieceId(i.id, piece++), i.made);
      };
    };
    std::vector<std::vector<StmtP>> t, e;
    if (!flatPieces(then, t) || (otherwise && !flatPieces(otherwise, e))) {
      StmtP first = liftBarriers(then, when(i.cond));
      return otherwise ? makeSeq({first, liftBarriers(otherwise, when(unary(UnaryOp::Not, i.cond)))}) : first;
    }
    if (t.size() <= 1 && e.size() <= 1) return std::make_shared<If>(i.cond, then, otherwise, i.id, i.made);
    std::vector<StmtP> out;
    for (size_t k = 0; k < std::max(t.size(), e.size()); ++k) {
      if (k) out.push_back(barrier(sourceLocOf(i.self())));
      bool hasThen = k < t.size() && !t[k].empty(), hasElse = k < e.size() && !e[k].empty();
      if (!hasThen && !hasElse) continue;
      out.push_back(std::make_shared<If>(i.cond, hasThen ? makeSeq(t[k]) : makeSeq({}),
                                         hasElse ? makeSeq(e[k]) : nullptr, pieceId(i.id, piece++), i.made));
    }
    return withOwnTensorsAround(then, otherwise, makeSeq(out));
  }
  // The statements of `s` between its barriers, where none is in a loop
  // (false if one is).
  static bool flatPieces(const StmtP& s, std::vector<std::vector<StmtP>>& out) {
    out.assign(1, {});
    std::function<bool(const StmtP&)> split = [&](const StmtP& body) {
      for (auto& item : items(body)) {
        if (item->kind == StmtKind::Barrier) out.emplace_back();
        else if (!hasBarrier(item)) out.back().push_back(item);
        else if (item->kind == StmtKind::Seq || liftable(item)) {
          if (!split(item->kind == StmtKind::Seq ? item : item->as<VarDef>().body)) return false;
        } else return false;
      }
      return true;
    };
    return split(s);
  }
  // `guard(body)` (a branch or a run-time check around `body`), with every
  // barrier in `body` taken out of the guard so that every thread reaches
  // it: the statements between barriers each get a copy of the guard; a
  // loop whose trip count is the same in every thread (uniformLoop) keeps
  // its barriers, with the guard moved inside it, as FreeTensor moves a
  // branch into a loop of constant count; a thread's own or a shared
  // tensor whose scope holds a barrier is defined around the pieces. A
  // barrier left elsewhere (a loop whose count differs between threads)
  // is refused.
  StmtP liftBarriers(const StmtP& body, const std::function<StmtP(const std::vector<StmtP>&)>& guard) {
    std::vector<StmtP> out, piece;
    auto flush = [&] {
      if (!piece.empty()) out.push_back(guard(piece));
      piece.clear();
    };
    std::function<void(const StmtP&)> walk = [&](const StmtP& s) {
      for (auto& item : items(s)) {
        if (item->kind == StmtKind::Barrier) {
          flush();
          out.push_back(item);
        } else if (!hasBarrier(item)) {
          piece.push_back(item);
        } else if (item->kind == StmtKind::Seq || liftable(item)) {
          walk(item->kind == StmtKind::Seq ? item : item->as<VarDef>().body);
        } else if (item->kind == StmtKind::For && uniformLoop(item->as<For>())) {
          flush();
          out.push_back(withBody(item->as<For>(), liftBarriers(loopBody(item->as<For>()), guard)));
        } else {
          throw UserError(sourceLocOf(item), "this statement needs a barrier inside it, within a branch or run-time "
                                             "check of loop '" + warpLoop_ + "' that not every thread takes, and its "
                                             "count may differ between threads; move it out of the branch");
        }
      }
    };
    walk(body);
    flush();
    return withOwnTensorsAround(body, nullptr, makeSeq(out));
  }
  // A tensor definition whose scope holds a barrier, which the pieces of a
  // split branch share: a thread's own (gpu/local) or the block's
  // (gpu/shared, already one copy per iteration of the loop).
  static bool liftable(const StmtP& s) {
    if (s->kind != StmtKind::VarDef || s->as<VarDef>().loopLocal) return false;
    MemKind mem = s->as<VarDef>().decl.mem;
    return (mem == MemKind::GpuLocal || mem == MemKind::GpuShared) && hasBarrier(s);
  }
  // `pieces` inside the definitions of the liftable tensors of `a` and `b`
  // (outside any loop in them), outermost first.
  static StmtP withOwnTensorsAround(const StmtP& a, const StmtP& b, StmtP pieces) {
    std::vector<const VarDef*> defs;
    std::function<void(const StmtP&)> find = [&](const StmtP& s) {
      if (!s) return;
      for (auto& item : items(s)) {
        if (item->kind == StmtKind::Seq) find(item);
        else if (liftable(item)) {
          defs.push_back(&item->as<VarDef>());
          find(item->as<VarDef>().body);
        }
      }
    };
    find(a);
    find(b);
    for (auto it = defs.rbegin(); it != defs.rend(); ++it)
      pieces = std::make_shared<VarDef>((*it)->decl, pieces, std::nullopt, (*it)->id, (*it)->made);
    return pieces;
  }
  static std::string pieceId(const std::string& id, int k) {
    return k == 0 || id.empty() ? id : id + ".split" + std::to_string(k);
  }
  // A loop inside the loop every thread runs once, outside its branches,
  // that every thread runs as often: its bounds read no tensor and not
  // that loop's iterator (FreeTensor's loops of constant count).
  bool uniformLoop(const For& f) const {
    if (!everyIterationInScope_ || !divergent_.empty() || f.loopKind.gpuThreads()) return false;
    bool same = true;
    for (const ExprP& bound : {f.begin, f.end})
      forEachExpr(bound, [&](const ExprP& e) {
        same = same && e->kind != ExprKind::Load && !(e->kind == ExprKind::Var && e->as<Var>().name == warpLoop_);
      });
    return same;
  }
  // Does `cond` read a tensor `body` writes?
  static bool readsWhatItWrites(const ExprP& cond, const StmtP& body) {
    std::set<std::string> written = tensorsWritten(body);
    bool reads = false;
    forEachExpr(cond, [&](const ExprP& e) { reads = reads || (e->kind == ExprKind::Load && written.count(e->as<Load>().tensor)); });
    return reads;
  }

  static bool hasBarrier(const StmtP& s) {
    bool found = false;
    forEachStmt(s, [&](const StmtP& t) { found = found || t->kind == StmtKind::Barrier; });
    return found;
  }

  bool writesShared(const StmtP& s) const {
    for (auto& a : accessesOf(s))
      if (a.kind != AccessKind::Read && !private_.count(a.tensor)) return true;
    return false;
  }

  BlockGuards guards() { return BlockGuards(blockDim_, taken_); }

  StmtP barrier(SourceLoc loc) {
    return std::make_shared<Barrier>(scope_, "", Provenance{loc.line ? loc : kernelLoc_, "gpu_barriers", ""});
  }

  const target::Target& target_;
  std::set<std::string> taken_, private_;
  int64_t blockDim_[3] = {1, 1, 1};
  BarrierScope scope_ = BarrierScope::Block;
  SourceLoc kernelLoc_;
  std::string warpLoop_;             // the warp loop whose body is being ordered (empty outside)
  ParallelScope warpScope_ = ParallelScope::Serial;  // the index it is bound to
  bool everyIterationInScope_ = false;             // all its iterations are in the scope of its barrier (one warp, or the block)
  std::vector<std::string> divergent_;  // loops, branches and checks around, inside it, that threads may take apart
  std::set<std::string> insideWarp_;  // the tensors it defines
};

}  // namespace

StmtP insertGuardsAndBarriers(const StmtP& nest, const Program&, const target::Target& target) {
  return Barriers(nest, target).host(nest);
}

}  // namespace teml::lowering
