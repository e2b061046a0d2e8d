#include "lowering/cpu/indirect_prefetches.hpp"

#include <map>
#include <set>

#include "ir/accesses.hpp"
#include "ir/mutator.hpp"
#include "ir/printer.hpp"
#include "ir/visitor.hpp"

namespace teml::lowering {

using namespace ir;

namespace {

constexpr int64_t kLineBytes = 64;
constexpr size_t kMaxPrefetches = 8;
// A tensor this small stays in the L2 cache of every x86 core we target
// (256 KiB to 2 MiB) once touched: fetching it ahead only adds work (CSR SpMV
// gathering a vector of 160 KB: 272 us without prefetches, 362 with).
constexpr int64_t kCachedBytes = 256 << 10;

bool hasLoad(const ExprP& e) { return !readsOf(e).empty(); }

// The elements the iterations of loop `f` touch through indices read from data.
class Candidates : public Visitor {
 public:
  Candidates(const For& f, const std::map<std::string, int64_t>& bytes) : var_(f.var), bytes_(bytes) {
    forEachStmt(f.body, [&](const StmtP& s) {
      if (s->kind == StmtKind::VarDef) inside_.insert(s->as<VarDef>().decl.name);
      if (s->kind == StmtKind::Store) written_.insert(s->as<Store>().tensor);
      if (s->kind == StmtKind::Reduce) written_.insert(s->as<Reduce>().tensor);
      if (s->kind == StmtKind::LibCall) unsafe = true;
    });
  }
  std::vector<Prefetch> out;
  bool unsafe = false;  // a check inside guards a subscript by the iterator
  using Visitor::visit;

 protected:
  void visitFor(const For& l) override {
    inner_[l.var] = &l;
    Visitor::visitFor(l);
    inner_.erase(l.var);
  }
  void visitAssert(const Assert& a) override {
    if (usesVar(a.cond, var_) && !hasLoad(a.cond)) unsafe = true;
    Visitor::visitAssert(a);
  }
  void visitLoad(const Load& l) override {
    consider(l.tensor, l.indices, l.dtype, false);
    Visitor::visitLoad(l);
  }
  void visitStore(const Store& st) override {
    consider(st.tensor, st.indices, st.value->dtype, true);
    Visitor::visitStore(st);
  }
  void visitReduce(const Reduce& r) override {
    consider(r.tensor, r.indices, r.value->dtype, true);
    Visitor::visitReduce(r);
  }

 private:
  void consider(const std::string& tensor, const std::vector<ExprP>& indices, DType dtype, bool write) {
    if (indices.empty() || inside_.count(tensor)) return;
    auto size = bytes_.find(tensor);
    if (size != bytes_.end() && size->second <= kCachedBytes) return;
    bool indirect = false, readable = true;
    for (auto& i : indices)
      forEachExpr(i, [&](const ExprP& x) {
        if (x->kind != ExprKind::Load) return;
        auto& l = x->as<Load>();
        if (inside_.count(l.tensor) || written_.count(l.tensor)) readable = false;
        for (auto& j : l.indices) {
          indirect = indirect || (isIntegral(l.dtype) && usesVar(j, var_));
          // idx[q[p]]: q[p + ahead] may hold anything; its check comes later.
          if (hasLoad(j)) readable = false;
        }
      });
    if (!indirect || !readable) return;
    // Inner loops' iterators only as the last subscript, over a row.
    const For* row = nullptr;
    for (size_t d = 0; d < indices.size(); ++d)
      for (auto& [v, loop] : inner_) {
        if (!usesVar(indices[d], v)) continue;
        bool plain = d + 1 == indices.size() && indices[d]->kind == ExprKind::Var && loop->step == 1;
        int64_t b, e;
        if (!plain || !constValue(loop->begin, &b) || !constValue(loop->end, &e)) return;
        row = loop;
      }
    std::vector<std::vector<ExprP>> addresses;
    if (!row) {
      addresses.push_back(indices);
    } else {
      int64_t b, e;
      constValue(row->begin, &b);
      constValue(row->end, &e);
      int64_t perLine = std::max<int64_t>(1, kLineBytes / bytes(dtype));
      // One per line from the row's start, and its last element: a row that
      // does not start on a line (NumPy's arrays start 16 bytes past one)
      // ends in one line more (embedding bag, rows of 256 bytes: 1.9 ms
      // with the fifth line left to a demand miss, 1.1 ms without).
      for (int64_t k = b; k < e; k += perLine) {
        addresses.push_back(indices);
        addresses.back().back() = intConst(k);
      }
      if ((e - 1 - b) % perLine != 0) {
        addresses.push_back(indices);
        addresses.back().back() = intConst(e - 1);
      }
    }
    for (auto& a : addresses) {
      ExprP at = load(tensor, a, dtype);
      std::string key = toString(at);
      auto seen = index_.find(key);
      if (seen != index_.end()) {
        out[seen->second].write = out[seen->second].write || write;
      } else if (out.size() < kMaxPrefetches) {
        index_[key] = out.size();
        out.push_back({at, write});
      }
    }
  }

  std::string var_;
  const std::map<std::string, int64_t>& bytes_;
  std::set<std::string> inside_, written_;
  std::map<std::string, const For*> inner_;
  std::map<std::string, size_t> index_;
};

class Prefetcher : public Mutator {
 public:
  // The bytes of the program's tensors and of those the nest defines.
  Prefetcher(const StmtP& nest, const Program& p) {
    for (auto& t : p.tensors) bytes_[t.name] = t.elementCount() * bytes(t.dtype);
    forEachStmt(nest, [&](const StmtP& s) {
      if (s->kind != StmtKind::VarDef) return;
      auto& d = s->as<VarDef>().decl;
      bytes_[d.name] = d.elementCount() * bytes(d.dtype);
    });
  }

 protected:
  StmtP mutateFor(const StmtP& s) override {
    StmtP m = Mutator::mutateFor(s);
    auto& f = m->as<For>();
    if (f.loopKind.concurrent() || (f.step != 1 && f.step != -1) || f.loopKind.cpu.copy.form != CopyForm::Loops) return m;
    Candidates c(f, bytes_);
    c.visit(f.body);
    if (c.unsafe || c.out.empty()) return m;
    LoopKind kind = f.loopKind;
    kind.cpu.prefetches = c.out;
    kind.cpu.prefetchAhead = kPrefetchAhead;
    return std::make_shared<For>(f.id, f.var, f.begin, f.end, f.step, kind, f.body, f.made);
  }

 private:
  std::map<std::string, int64_t> bytes_;
};

}  // namespace

StmtP addIndirectPrefetches(const StmtP& nest, const Program& program) { return Prefetcher(nest, program).mutate(nest); }

}  // namespace teml::lowering
