#include "ir/verify.hpp"

#include <set>

#include "ir/printer.hpp"
#include "ir/scoped_visitor.hpp"

namespace teml::ir {

namespace {

class Verifier : public ScopedVisitor {
 public:
  explicit Verifier(const std::vector<TensorDecl>& tensors) : ScopedVisitor(tensors) {}
  std::string problem;

  using Visitor::visit;
  void visit(const StmtP& s) override {
    if (!problem.empty()) return;
    // Statements without an id are numbered by ir::uniqueStatementIds.
    if (s->kind != StmtKind::For && !s->id.empty() && !ids_.insert(s->id).second)
      fail("two statements have the id '" + s->id + "'");
    Visitor::visit(s);
  }

 protected:
  void visitFor(const For& f) override {
    if (!ids_.insert(f.id).second) fail("two statements have the id '" + f.id + "'");
    integral(f.begin, "the start of loop '" + f.var + "'");
    integral(f.end, "the end of loop '" + f.var + "'");
    if (f.step == 0) fail("loop '" + f.var + "' has step 0");
    if (isBound(f.var)) fail("loop '" + f.var + "' rebinds the iterator of a loop around it");
    if (f.loopKind.gpuBlocks() && threadLoop_)
      fail("loop '" + f.var + "' bound to blockIdx is inside '" + threadLoop_->var + "', bound to threadIdx");
    ownedBody_ = f.body.get();
    const For *outerThreads = threadLoop_, *outerLanes = laneLoop_;
    bool outerWarpsY = warpsY_, outerWarpsZ = warpsZ_;
    bool outerOnce = everyThreadOnce_;
    if (!f.loopKind.kernel.name.empty()) {
      auto& d = f.loopKind.kernel.blockDim;
      bool oneWarp = d[0] * d[1] * d[2] <= kWarpSize;
      warpsY_ = oneWarp || (d[0] == kWarpSize && d[2] == 1);
      warpsZ_ = oneWarp || (d[0] == kWarpSize && d[1] == 1);
      for (int k = 0; k < 3; ++k) blockDim_[k] = d[k];
      everyThreadOnce_ = true;
    }
    if (f.loopKind.gpuThreads()) {
      threadLoop_ = &f;
      int64_t b = 0, e = 0;
      everyThreadOnce_ = everyThreadOnce_ && f.step == 1 && constValue(f.begin, &b) && constValue(f.end, &e) &&
                         e - b == blockDim_[gpuDimension(f.loopKind.scope)];
    }
    if (f.loopKind.scope == ParallelScope::ThreadX) laneLoop_ = &f;
    ScopedVisitor::visitFor(f);
    threadLoop_ = outerThreads, laneLoop_ = outerLanes, warpsY_ = outerWarpsY, warpsZ_ = outerWarpsZ;
    everyThreadOnce_ = outerOnce;
  }
  // A barrier only where every thread it waits for gets: a block's outside
  // thread loops, or inside loops over threadIdx.y (.z) whose counts are the
  // block's (each thread runs them once); a warp's also inside a loop over
  // threadIdx.y (.z) where each of its iterations is one warp (blockDim.x
  // is 32 and blockDim.z (.y) is 1), or the block is one.
  void visitBarrier(const Barrier& b) override {
    if (!threadLoop_ || (everyThreadOnce_ && !laneLoop_)) return;
    bool warps = threadLoop_->loopKind.scope == ParallelScope::ThreadY ? warpsY_ : warpsZ_;
    if (b.scope != BarrierScope::Warp || laneLoop_ || !warps)
      fail("a barrier inside loop '" + threadLoop_->var + "', bound to threadIdx");
  }
  void visitVarDef(const VarDef& v) override {
    if (v.loopLocal) {
      // A loop's local tensor is a program tensor given a fresh copy per
      // iteration (schedule::local, cache): it may take a program tensor's
      // name (analysis/locals.hpp checks its uses), but belongs to a loop.
      if (&v != ownedBody_) fail("local tensor '" + v.decl.name + "' is not the body of the loop that owns it");
      ownedBody_ = v.body.get();
    } else if (tensor(v.decl.name)) {
      fail("tensor '" + v.decl.name + "' is defined again inside its own scope");
    }
    ScopedVisitor::visitVarDef(v);
  }
  void visitStore(const Store& st) override {
    access(st.tensor, st.indices);
    identified(st.tag, st.tensor);
    Visitor::visitStore(st);
  }
  void visitReduce(const Reduce& r) override {
    access(r.tensor, r.indices);
    identified(r.tag, r.tensor);
    Visitor::visitReduce(r);
  }
  // The dependence analysis knows a statement by its tag; one without would
  // be invisible to it.
  void identified(const StmtTag& tag, const std::string& tensor) {
    if (!tag.known()) fail("a statement writing '" + tensor + "' has no identity (StmtTag) for the dependence analysis");
  }
  void visitIf(const If& i) override {
    integral(i.cond, "a branch condition");
    Visitor::visitIf(i);
  }
  void visitAssert(const Assert& a) override {
    integral(a.cond, "an assertion's condition");
    if (a.shown) integral(a.shown, "the value an assertion shows");
    Visitor::visitAssert(a);
  }
  void visitLoad(const Load& l) override {
    if (const TensorDecl* d = access(l.tensor, l.indices); d && d->dtype != l.dtype)
      fail("a load of '" + l.tensor + "' is typed " + dtypeName(l.dtype) + " but the tensor holds " +
           dtypeName(d->dtype));
    Visitor::visitLoad(l);
  }
  void visitVar(const Var& v) override {
    if (!isBound(v.name) && v.name != kRankVariable) fail("iterator '" + v.name + "' is used outside a loop that binds it");
  }
  void visitSelect(const Select& s) override {
    integral(s.cond, "a select's condition");
    Visitor::visitSelect(s);
  }

 private:
  const Stmt* ownedBody_ = nullptr;  // where a loop-local VarDef may stand
  int64_t blockDim_[3] = {1, 1, 1};  // of the kernel around
  bool everyThreadOnce_ = true;      // every thread loop around runs once in each thread
  void fail(const std::string& what) {
    if (problem.empty()) problem = what;
  }
  void integral(const ExprP& e, const std::string& what) {
    if (!e->isInt()) fail(what + " (" + toString(e) + ") is " + dtypeName(e->dtype) + ", not an integer");
  }
  const TensorDecl* access(const std::string& name, const std::vector<ExprP>& idx) {
    const TensorDecl* d = tensor(name);
    if (!d) {
      fail("tensor '" + name + "' is accessed outside any definition of it");
      return nullptr;
    }
    if (idx.size() != d->shape.size())
      fail("tensor '" + name + "' has " + std::to_string(d->shape.size()) + " dimensions but is indexed with " +
           std::to_string(idx.size()));
    for (auto& i : idx) integral(i, "an index of '" + name + "'");
    return d;
  }

  std::set<std::string> ids_;
  static constexpr int64_t kWarpSize = 32;  // every NVIDIA GPU's
  const For* threadLoop_ = nullptr;  // the innermost loop around bound to threadIdx
  const For* laneLoop_ = nullptr;    // the innermost loop around bound to threadIdx.x
  bool warpsY_ = false, warpsZ_ = false;  // an iteration of a loop over threadIdx.y (.z) is one warp
};

}  // namespace

std::string verify(const StmtP& nest, const std::vector<TensorDecl>& tensors) {
  Verifier v(tensors);
  v.visit(nest);
  return v.problem;
}

std::string verify(const Program& program) {
  for (auto& n : program.nests)
    if (std::string p = verify(n, program.tensors); !p.empty()) return p;
  return "";
}

}  // namespace teml::ir
