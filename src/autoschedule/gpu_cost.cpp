#include "autoschedule/gpu_cost.hpp"

#include <algorithm>
#include <cmath>

#include "autoschedule/loop_queries.hpp"
#include "ir/accesses.hpp"
#include "ir/affine.hpp"
#include "ir/mutator.hpp"
#include "ir/visitor.hpp"
#include "lowering/cuda/cuda_passes.hpp"

namespace teml::autoschedule {

using namespace ir;

namespace {

constexpr double kLaunchSeconds = 3e-6;    // a kernel's launch, as the driver queues it
constexpr double kWarpsToHideLatency = 8;  // resident warps per SM below which it idles

// Operations of an expression: its nodes, the slow ones (exp, log,
// division...) as 4.
double operations(const ExprP& e) {
  double n = 0;
  forEachExpr(e, [&](const ExprP& x) {
    UnaryOp u = x->kind == ExprKind::Unary ? x->as<Unary>().op : UnaryOp::Neg;
    bool slow = u == UnaryOp::Exp || u == UnaryOp::Log || u == UnaryOp::Sqrt || u == UnaryOp::Tanh ||
                u == UnaryOp::Sigmoid || u == UnaryOp::Sin || u == UnaryOp::Cos ||
                (x->kind == ExprKind::Binary && (x->as<Binary>().op == BinOp::Div || x->as<Binary>().op == BinOp::Mod ||
                                                 x->as<Binary>().op == BinOp::FloorDiv));
    n += slow ? 4 : x->kind == ExprKind::Var || x->kind == ExprKind::IntConst || x->kind == ExprKind::FloatConst ? 0 : 1;
  });
  return n;
}

class KernelCost : public Visitor {
 public:
  using Lookup = std::function<const TensorDecl*(const std::string&)>;
  KernelCost(const For& root, const Lookup& lookup) : lookup_(lookup) {
    const GpuKernelPlan& plan = root.loopKind.kernel;
    for (int d = 0; d < 3; ++d) block_[d] = plan.blockDim[d];
    threads_ = static_cast<double>(block_[0] * block_[1] * block_[2]);
    blocks_ = 1;
    const For* f = &root;
    while (f->loopKind.gpuBlocks()) {
      blocks_ *= std::max<double>(1, trips(*f));
      const StmtP& body = loopBody(*f);
      if (body->kind != StmtKind::For) break;
      f = &body->as<For>();
    }
    visit(root.self());
  }
  double warpInstructions() const { return blocks_ * instructions_; }
  // Bytes the warps ask of the memory system, and those that come from
  // DRAM: a tensor that fits in L2 once, however often it is read.
  double bytes() const {
    double all = 0;
    for (auto& [t, b] : bytes_) all += b;
    return blocks_ * all;
  }
  double dramBytes(double l2Bytes) const {
    double out = 0;
    for (auto& [t, b] : bytes_) {
      const TensorDecl* d = decl(t);
      double size = d ? static_cast<double>(std::max<int64_t>(1, d->elementCount()) * ir::bytes(d->dtype)) : 0;
      out += d && size <= l2Bytes ? std::min(blocks_ * b, size) : blocks_ * b;
    }
    return out;
  }
  double residentWarps() const { return blocks_ * std::ceil(threads_ / 32); }

 protected:
  using Visitor::visit;
  void visit(const ExprP&) override {}

  void visitVarDef(const VarDef& v) override {
    own_.insert(v.decl.name);
    local_[v.decl.name] = &v.decl;
    Visitor::visitVarDef(v);
  }
  void visitFor(const For& f) override {
    if (f.loopKind.gpuBlocks()) return Visitor::visitFor(f);
    double times = times_, active = active_;
    std::string lane = lane_;
    tripsOf_[f.var] = trips(f);
    if (f.loopKind.gpuThreads()) {
      int d = gpuDimension(f.loopKind.scope);
      active_ *= std::min(1.0, trips(f) / static_cast<double>(block_[d]));
      if (d == 0) lane_ = f.var;
    } else {
      times_ *= trips(f);
      if (!lane_.empty()) walked_.push_back(f.var);
    }
    Visitor::visitFor(f);
    if (!f.loopKind.gpuThreads() && !lane.empty()) walked_.pop_back();
    times_ = times, active_ = active, lane_ = lane;
  }
  void visitStore(const Store& s) override { statement(s.tensor, s.indices, s.value); }
  void visitReduce(const Reduce& r) override { statement(r.tensor, r.indices, r.value); }

 private:
  void statement(const std::string& tensor, const std::vector<ExprP>& indices, const ExprP& value) {
    double warps = std::max(1.0, std::ceil(active_ * threads_ / 32));
    double ops = 1 + operations(value);
    for (auto& i : indices) ops += operations(i);
    instructions_ += times_ * warps * ops;
    std::vector<std::pair<std::string, std::vector<ExprP>>> touched{{tensor, indices}};
    for (auto& r : readsOf(value)) touched.push_back({r.tensor, r.indices});
    for (auto& i : indices)
      for (auto& r : readsOf(i)) touched.push_back({r.tensor, r.indices});
    for (auto& [t, idx] : touched)
      if (!own_.count(t)) bytes_[t] += times_ * warps * 32 * sectors(t, idx);
  }

  // 32-byte sectors one warp's access moves (see gpu_cost.hpp).
  double sectors(const std::string& tensor, const std::vector<ExprP>& idx) const {
    const TensorDecl* d = decl(tensor);
    double element = d ? ir::bytes(d->dtype) : 4;
    if (idx.empty() || lane_.empty()) return 1;
    bool lanesApart = false;
    for (size_t k = 0; k + 1 < idx.size(); ++k) lanesApart = lanesApart || usesVar(idx[k], lane_);
    Affine last;
    if (!toAffine(idx.back(), &last)) return usesVar(idx.back(), lane_) || !readsOf(idx.back()).empty() ? 32 : 1;
    int64_t c = std::abs(last.coeff(lane_));
    if (c == 1 && !lanesApart) return element;
    if (c > 1) return std::min(32.0, c * element);
    if (!lanesApart) return 1;  // every lane the same element
    for (auto& w : walked_)
      if (std::abs(last.coeff(w)) == 1) return element;  // each lane walks its own row
    return 32;
  }
  const TensorDecl* decl(const std::string& t) const {
    auto it = local_.find(t);
    return it != local_.end() ? it->second : lookup_(t);
  }
  // A loop's trips: constant, or for a CSR row the elements per row of
  // the tensor it indexes, over the parts loops around split it in (an
  // iterator of theirs in its bounds outside the reads of data), else 16.
  double trips(const For& f) const {
    int64_t n = constantTrips(f);
    if (n >= 0) return static_cast<double>(n);
    bool known = false;
    int64_t most = lowering::mostIterations(f, &known);
    if (known) return static_cast<double>(most);
    double row = rowLength(f);
    for (auto& v : iteratorsOutsideReads(f)) {
      auto it = tripsOf_.find(v);
      if (it != tripsOf_.end() && it->second > 1) row /= it->second;
    }
    return row;  // a mean: a lane's share of a row may be less than one
  }
  // The iterators in f's bounds outside the subscripts of reads of data.
  static std::set<std::string> iteratorsOutsideReads(const For& f) {
    struct Walk : Visitor {
      std::set<std::string> found;
      using Visitor::visit;
      void visitLoad(const Load&) override {}
      void visitVar(const Var& v) override { found.insert(v.name); }
    } walk;
    walk.visit(f.begin);
    walk.visit(f.end);
    return walk.found;
  }
  double rowLength(const For& f) const {
    std::vector<Access> bounds = readsOf(f.end);
    for (auto& a : accessesOf(f.body))
      for (size_t k = 0; k < a.indices.size(); ++k)
        if (a.indices[k]->kind == ExprKind::Var && a.indices[k]->as<Var>().name == f.var && !bounds.empty()) {
          const TensorDecl *indexed = decl(a.tensor), *rows = decl(bounds[0].tensor);
          if (indexed && rows && !rows->shape.empty() && k < indexed->shape.size())
            return static_cast<double>(indexed->shape[k]) / std::max<int64_t>(1, rows->shape[0] - 1);
        }
    return 16;
  }

  const Lookup& lookup_;
  int64_t block_[3] = {1, 1, 1};
  double threads_ = 1, blocks_ = 1;
  double times_ = 1, active_ = 1;  // executions per thread; the share of the block's threads running
  std::string lane_;                // the loop on threadIdx.x around
  std::vector<std::string> walked_;  // serial loops inside it
  std::set<std::string> own_;
  std::map<std::string, const TensorDecl*> local_;
  std::map<std::string, double> tripsOf_;  // of the loops met, by iterator
  double instructions_ = 0;
  std::map<std::string, double> bytes_;  // per tensor, per block
};

}  // namespace

GpuCost gpuCost(const StmtP& nest, const std::function<const TensorDecl*(const std::string&)>& lookup,
                const target::Target& target) {
  GpuCost cost;
  StmtP kernels = lowering::makeKernels(nest, Program{}, target);
  const target::GpuLimits& gpu = target.gpu;
  forEachStmt(kernels, [&](const StmtP& s) {
    if (s->kind != StmtKind::For || s->as<For>().loopKind.kernel.name.empty()) return;
    KernelCost k(s->as<For>(), lookup);
    double use = std::min(1.0, k.residentWarps() / (gpu.multiprocessors * kWarpsToHideLatency));
    double compute = k.warpInstructions() / (gpu.multiprocessors * 4 * gpu.clockGhz * 1e9 * use);
    double memory = std::max(k.dramBytes(gpu.l2Bytes) / gpu.memoryGBs, k.bytes() / gpu.l2GBs) / (1e9 * use);
    cost.warpInstructions += k.warpInstructions();
    cost.bytes += k.bytes();
    cost.seconds += std::max(compute, memory) + kLaunchSeconds;
    ++cost.kernels;
  });
  return cost;
}

}  // namespace teml::autoschedule
