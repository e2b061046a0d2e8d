#include "lowering/parallel_reductions.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <set>

#include "analysis/concurrency_with_isl.hpp"
#include "analysis/local_box.hpp"
#include "diag/diagnostics.hpp"
#include "ir/accesses.hpp"
#include "ir/visitor.hpp"
#include "ir/mutator.hpp"
#include "ir/printer.hpp"

namespace teml::lowering {

using namespace ir;
using analysis::ReduceStrategy;

namespace {

// Each thread keeps a private copy of an array accumulator: on its stack
// up to 32 KiB (OpenMP's reduction clause), on the heap up to 16 MiB (the
// emitter allocates and merges the copies), where the loop updates the
// array at least as many times as it has elements (zeroing and merging a
// copy costs about that; atomic updates cost far more each). A heap
// accumulator for a whole tensor is the tensor itself: copying the tensor
// into a box of the same size and back would only add traffic.
constexpr int64_t kMaxStackArrayBytes = 32 * 1024;
constexpr int64_t kMaxHeapArrayBytes = 16 << 20;

// A loop's trip count, or its bound where the end is a min (a block of a
// split loop: min(b * o + b, n)); 16 where data decide it.
int64_t tripsOf(const For& l) {
  int64_t n;
  if (constValue(sub(l.end, l.begin), &n)) return std::max<int64_t>(1, n / l.step);
  if (l.end->kind == ExprKind::Binary && l.end->as<Binary>().op == BinOp::Min) {
    auto& m = l.end->as<Binary>();
    if (constValue(sub(m.a, l.begin), &n) || constValue(sub(m.b, l.begin), &n)) return std::max<int64_t>(1, n / l.step);
  }
  return 16;
}

// How often `target` runs in one run of f: the trip counts of f and of the
// loops around it inside f.
class RunsIn : public Visitor {
 public:
  explicit RunsIn(const Stmt* target) : target_(target) {}
  int64_t of(const For& f) {
    times_ = tripsOf(f);
    visit(f.body);
    return found_;
  }
  using Visitor::visit;
  void visit(const ExprP&) override {}

 protected:
  void visitFor(const For& l) override {
    int64_t outer = times_;
    times_ *= tripsOf(l);
    Visitor::visitFor(l);
    times_ = outer;
  }
  void visitReduce(const Reduce& r) override {
    if (&r == target_) found_ = times_;
  }

 private:
  const Stmt* target_;
  int64_t times_ = 1, found_ = 0;
};

std::string fresh(std::set<std::string>& names, const std::string& base) {
  for (int k = 0;; ++k) {
    std::string n = base + "_acc" + (k ? std::to_string(k) : "");
    if (names.insert(n).second) return n;
  }
}

// for z_0 in [0, e_0) ... : body(z, tag) -- a nest over a box's elements;
// its statement's identity `id` names the loops around it (`enclosing`) and z.
StmtP boxLoops(const std::string& id, const std::vector<int64_t>& extent, const std::vector<std::string>& enclosing,
               const std::function<StmtP(const std::vector<ExprP>&, StmtTag)>& body) {
  std::string prefix = id;
  std::replace(prefix.begin(), prefix.end(), '.', '_');
  StmtTag tag{id, enclosing, {}};
  for (auto& v : enclosing) tag.origin.push_back(var(v));
  std::vector<ExprP> z;
  for (size_t d = 0; d < extent.size(); ++d) {
    z.push_back(var(prefix + "_z" + std::to_string(d)));
    tag.names.push_back(prefix + "_z" + std::to_string(d));
    tag.origin.push_back(z.back());
  }
  StmtP s = body(z, tag);
  for (size_t d = extent.size(); d-- > 0;)
    s = makeFor(id + ".z" + std::to_string(d), prefix + "_z" + std::to_string(d), intConst(0), intConst(extent[d]), 1,
                LoopKind{}, s, {}, Provenance{{}, "lowering", ""});
  return s;
}

// One accumulator: the reductions into `tensor` it replaces (all of them for
// an array, those at `indices` with `op` for a scalar).
struct Accumulator {
  std::string name, tensor;
  ReduceOp op;
  bool array = false;
  std::vector<ExprP> indices;  // scalar: the element
  analysis::LocalBox box;      // array: the elements one iteration updates
  bool heap = false;           // array: copies per thread on the heap
  bool inPlace() const { return name == tensor; }
};

class RedirectReductions : public Mutator {
 public:
  RedirectReductions(const std::vector<Accumulator>& accs, const std::set<std::string>& atomic)
      : accs_(accs), atomic_(atomic) {}

 protected:
  StmtP mutateReduce(const StmtP& s) override {
    auto& r = s->as<Reduce>();
    for (auto& a : accs_) {
      if (a.tensor != r.tensor || a.op != r.op) continue;
      if (a.inPlace()) return s;
      if (a.array) {
        std::vector<ExprP> idx;
        for (size_t d = 0; d < r.indices.size(); ++d) idx.push_back(sub(r.indices[d], a.box.offset[d]));
        return makeReduce(r.op, a.name, idx, r.value, r.loc, r.tag);
      }
      bool same = a.indices.size() == r.indices.size();
      for (size_t d = 0; same && d < r.indices.size(); ++d) same = equal(a.indices[d], r.indices[d]);
      if (same) return makeReduce(r.op, a.name, {}, r.value, r.loc, r.tag);
    }
    if (atomic_.count(r.id)) return makeReduce(r.op, r.tensor, r.indices, r.value, r.loc, r.tag, true);
    return s;
  }

 private:
  const std::vector<Accumulator>& accs_;
  const std::set<std::string>& atomic_;  // ids of the reductions made atomic
};

class ParallelReductions : public Mutator {
 public:
  ParallelReductions(const StmtP& scheduled, std::set<std::string>& names, const std::string& cacheDir)
      : scheduled_(scheduled), names_(names), cacheDir_(cacheDir) {}

 protected:
  StmtP mutateFor(const StmtP& s) override {
    auto& f = s->as<For>();
    if (!(f.loopKind.threads() || f.loopKind.lanes()) || f.loopKind.independent) return inside(f, s);
    bool simd = f.loopKind.lanes();  // a loop in threads and lanes must be safe for lanes
    // The affine test is conservative: isl decides whether iterations meet at all.
    auto c = analysis::concurrencyOf(scheduled_, f, simd, true, cacheDir_);
    // What was proven when the loop was marked still holds where this nest
    // hides why (a range-checked copy without the index checks).
    if (!c.report.ok && !f.loopKind.apart.empty())
      c.report = analysis::analyzeConcurrentLoop(f, simd, f.loopKind.apart);
    if (!c.report.ok) throw InternalError("lowering: " + c.report.reason);
    const auto& rep = c.report;
    bool anyStrategy = false;
    for (auto& [r, strategy] : rep.reduces) anyStrategy |= strategy != ReduceStrategy::Plain;
    if (!anyStrategy) return inside(f, s);

    std::vector<Accumulator> accs;
    std::set<std::string> atomic;
    for (auto& [r, strategy] : rep.reduces) {
      // Atomic for a loop around this one: other threads update the element
      // meanwhile, so a private copy's copy-out would lose their updates.
      if (r->atomic) continue;
      if (strategy == ReduceStrategy::Accumulator) addScalar(*r, accs);
      // Inside a loop on threads a private array's copy-in and copy-out
      // would race with the other iterations of that loop: its box is a
      // bounding box (the whole tensor where subscripts are not affine), which
      // may hold elements they update (fuzz seed 10982: a merged loop on
      // threads inside another, the whole 9 x 9 copied back by each row).
      if (strategy == ReduceStrategy::Atomic && (threadsAround_ > 0 || !addArray(f, *r, accs))) atomic.insert(r->id);
    }
    StmtP body = RedirectReductions(accs, atomic).mutate(f.body);
    LoopKind kind = f.loopKind;
    for (auto& a : accs) {
      kind.reductions.push_back({a.op, a.name, a.tensor, a.heap});
      if (!a.inPlace()) decls_[a.name] = declOf(a);
    }
    // Loops inside see the accumulators as shared tensors and get their own strategies.
    StmtP loop = inside(f, std::make_shared<For>(f.id, f.var, f.begin, f.end, f.step, kind, body, f.made));
    return wrap(accs, loop);
  }

 private:
  // The loops inside f, with f's iterator among the enclosing ones.
  StmtP inside(const For& f, const StmtP& s) {
    enclosing_.push_back(f.var);
    distributedAround_ += f.loopKind.distributed;
    threadsAround_ += f.loopKind.threads();
    StmtP out = Mutator::mutateFor(s);
    threadsAround_ -= f.loopKind.threads();
    distributedAround_ -= f.loopKind.distributed;
    enclosing_.pop_back();
    return out;
  }

  // The value an accumulator of `op` over `t` starts from; null where there
  // is none to write (bool).
  static ExprP identityOf(ReduceOp op, DType t) {
    if (t == DType::Bool) return nullptr;
    if (isIntegral(t)) {
      int64_t v = op == ReduceOp::Max   ? (t == DType::I32 ? INT32_MIN : INT64_MIN)
                  : op == ReduceOp::Min ? (t == DType::I32 ? INT32_MAX : INT64_MAX)
                                        : static_cast<int64_t>(reduceIdentity(op));
      return cast(t, intConst(v));
    }
    return floatConst(reduceIdentity(op), t);
  }

  const TensorDecl& declOf(const std::string& tensor) {
    // Accumulators take the element type of the tensor they stand for.
    auto it = decls_.find(tensor);
    if (it == decls_.end()) throw InternalError("lowering: no declaration of '" + tensor + "'");
    return it->second;
  }

  void addScalar(const Reduce& r, std::vector<Accumulator>& accs) {
    for (auto& a : accs) {
      if (a.array || a.tensor != r.tensor || a.op != r.op || a.indices.size() != r.indices.size()) continue;
      bool same = true;
      for (size_t d = 0; d < r.indices.size(); ++d) same = same && equal(a.indices[d], r.indices[d]);
      if (same) return;
    }
    accs.push_back(Accumulator{fresh(names_, r.tensor), r.tensor, r.op, false, r.indices, {}});
  }

  // A private array for the box of `r.tensor` one iteration updates
  // (privateArrayBox).
  bool addArray(const For& f, const Reduce& r, std::vector<Accumulator>& accs) {
    for (auto& a : accs)
      if (a.array && a.tensor == r.tensor) return true;
    auto found = privateArrayBox(f, r, declOf(r.tensor));
    if (!found) return false;
    const analysis::LocalBox& box = *found;
    int64_t size = box.elementCount() * bytes(declOf(r.tensor).dtype);
    bool heap = size > kMaxStackArrayBytes;
    bool whole = box.extent == declOf(r.tensor).shape;
    int64_t at;
    for (auto& o : box.offset) whole = whole && constValue(o, &at) && at == 0;
    accs.push_back(Accumulator{heap && whole ? r.tensor : fresh(names_, r.tensor), r.tensor, r.op, true, {}, box, heap});
    return true;
  }

  // In the element type of the tensor it stands for.
  TensorDecl declOf(const Accumulator& a) {
    int64_t size = a.array ? a.box.elementCount() * bytes(declOf(a.tensor).dtype) : 0;
    return TensorDecl{a.name, declOf(a.tensor).dtype, a.array ? a.box.extent : std::vector<int64_t>{},
                      !a.array ? MemKind::Register : size > kMaxStackArrayBytes ? MemKind::Heap : MemKind::Stack};
  }

  // var acc { acc = target; loop; target = acc } for each accumulator.
  // Inside a distributed loop, var acc { acc = identity; loop; target op= acc }:
  // each rank's blocks then reduce into the target, which the ranks combine
  // (lowering/distributed/exchanges.cpp), where copying it in and out would
  // be two ranks storing the same elements.
  StmtP wrap(const std::vector<Accumulator>& accs, StmtP loop) {
    for (auto& a : accs) {
      if (a.inPlace()) continue;
      const TensorDecl& t = declOf(a.tensor);
      TensorDecl decl = declOf(a);
      ExprP identity = distributedAround_ > 0 ? identityOf(a.op, t.dtype) : nullptr;
      // The elements the accumulator stands for: one, or its box's.
      auto at = [&](const std::vector<ExprP>& z) {
        if (!a.array) return a.indices;
        std::vector<ExprP> idx;
        for (size_t d = 0; d < z.size(); ++d) idx.push_back(add(a.box.offset[d], z[d]));
        return idx;
      };
      const Provenance made{{}, "lowering", ""};
      StmtP in = boxLoops(a.name + ".in", decl.shape, enclosing_, [&](auto& z, StmtTag tag) {
        return withIdentity(makeStore(a.name, z, identity ? identity : load(a.tensor, at(z), t.dtype), {}, tag), "",
                            made);
      });
      StmtP out = boxLoops(a.name + ".out", decl.shape, enclosing_, [&](auto& z, StmtTag tag) {
        if (identity)
          return withIdentity(makeReduce(a.op, a.tensor, at(z), load(a.name, z, t.dtype), {}, tag), "", made);
        return withIdentity(makeStore(a.tensor, at(z), load(a.name, z, t.dtype), {}, tag), "", made);
      });
      loop = withIdentity(makeVarDef(decl, makeSeq({in, loop, out})), "", made);
    }
    return loop;
  }

 public:
  std::map<std::string, TensorDecl> decls_;

 private:
  const StmtP& scheduled_;
  std::set<std::string>& names_;
  const std::string& cacheDir_;
  std::vector<std::string> enclosing_;  // iterators of the loops around the one being lowered
  int distributedAround_ = 0;           // how many of those are distributed
  int threadsAround_ = 0;               // how many of those run on threads
};

// Declarations of the tensors a nest may reduce into: the program's and the
// nest's own VarDefs (loop-local or scoped).
void collectDecls(const StmtP& nest, std::map<std::string, TensorDecl>& decls) {
  forEachStmt(nest, [&](const StmtP& s) {
    if (s->kind == StmtKind::VarDef) {
      auto& v = s->as<VarDef>();
      decls[v.decl.name] = v.decl;
    }
  });
}

}  // namespace

std::optional<analysis::LocalBox> privateArrayBox(const For& f, const Reduce& r, const TensorDecl& tensor) {
  if (f.loopKind.lanes()) return std::nullopt;
  for (auto& a : accessesOf(f.body))
    if (a.tensor == r.tensor && (a.kind != AccessKind::Reduce || a.op != r.op)) return std::nullopt;
  analysis::LocalBox box;
  std::string why;
  if (!analysis::localBox(f.body, r.tensor, &box, &why)) {
    // Indices that data decide (a scatter x[idx[k]] += ...): every
    // element may be updated, so the box is the whole tensor.
    box = analysis::LocalBox{true, {}, tensor.shape};
    for (size_t d = 0; d < box.extent.size(); ++d) box.offset.push_back(intConst(0));
  }
  if (!box.used) return std::nullopt;
  for (auto& o : box.offset)
    if (usesVar(o, f.var)) return std::nullopt;
  int64_t size = box.elementCount() * bytes(tensor.dtype);
  if (size > kMaxHeapArrayBytes || (size > kMaxStackArrayBytes && RunsIn(&r).of(f) < box.elementCount()))
    return std::nullopt;
  return box;
}

StmtP makeParallelReductions(const StmtP& nest, const StmtP& scheduled, const std::vector<TensorDecl>& tensors,
                             std::set<std::string>& names, const std::string& cacheDir) {
  ParallelReductions pass(scheduled, names, cacheDir);
  for (auto& t : tensors) pass.decls_[t.name] = t;
  collectDecls(nest, pass.decls_);
  return pass.mutate(nest);
}

}  // namespace teml::lowering
