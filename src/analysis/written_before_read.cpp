#include "analysis/written_before_read.hpp"

#include <map>
#include <vector>

#include "ir/mutator.hpp"
#include "ir/scoped_visitor.hpp"

namespace teml::analysis {

using namespace ir;

namespace {

struct Access {
  bool store;  // a store; else a read or an update (which reads)
  std::vector<ExprP> indices;
  std::vector<const For*> loops;  // around it, outermost first
  bool conditional;               // under a branch
  ExprP storedValue;
};

// Every access of one tensor in program order (what a statement reads
// before what it writes). `unknown`: something touches it that this walk
// does not follow.
class Accesses : public ScopedVisitor {
 public:
  explicit Accesses(std::string tensor) : tensor_(std::move(tensor)) {}
  std::vector<Access> found;
  bool unknown = false;
  using Visitor::visit;

 protected:
  void visitVarDef(const VarDef& v) override {
    if (v.decl.name == tensor_) unknown = true;  // a tensor of the same name inside
    ScopedVisitor::visitVarDef(v);
  }
  void visitIf(const If& i) override {
    visit(i.cond);
    ++branches_;
    visit(i.then);
    if (i.otherwise) visit(i.otherwise);
    --branches_;
  }
  // Assert: a failed check stops the run, so its body runs on every path
  // that goes on (the base visit: condition, then body).
  void visitStore(const Store& st) override {
    visit(st.indices);
    visit(st.value);
    if (st.tensor == tensor_) found.push_back({true, st.indices, loops(), branches_ > 0, st.value});
  }
  void visitReduce(const Reduce& r) override {
    visit(r.indices);
    visit(r.value);
    if (r.tensor == tensor_) found.push_back({false, r.indices, loops(), branches_ > 0, nullptr});
  }
  void visitLoad(const Load& l) override {
    if (l.tensor == tensor_) found.push_back({false, l.indices, loops(), branches_ > 0, nullptr});
    Visitor::visitLoad(l);
  }
  void visitLibCall(const LibCall& c) override {
    for (auto& t : c.tensors) unknown = unknown || t == tensor_;
  }
  void visitExchange(const Exchange& x) override { unknown = unknown || x.tensor == tensor_; }

 private:
  std::string tensor_;
  int branches_ = 0;
};

bool readsTensor(const ExprP& e, const std::string& tensor) {
  bool found = false;
  forEachExpr(e, [&](const ExprP& x) { found = found || (x->kind == ExprKind::Load && x->as<Load>().tensor == tensor); });
  return found;
}

bool isIterator(const ExprP& e, const For& f) { return e->kind == ExprKind::Var && e->as<Var>().name == f.var; }

// The store writes every element of `shape` once its loops have run: each
// subscript the iterator of its own loop over the whole extent, and every
// loop around it runs at least once.
std::optional<std::vector<const For*>> coveringLoops(const Access& s, const std::vector<int64_t>& shape,
                                                     const std::string& tensor) {
  if (!s.store || s.conditional || s.indices.size() != shape.size() || readsTensor(s.storedValue, tensor))
    return std::nullopt;
  for (auto* f : s.loops) {
    int64_t b, e;
    if (!constValue(f->begin, &b) || !constValue(f->end, &e) || f->step == 0 ||
        (f->step > 0 ? e <= b : b <= e))
      return std::nullopt;
  }
  std::vector<const For*> perDim;
  for (size_t d = 0; d < shape.size(); ++d) {
    const For* loop = nullptr;
    for (auto* f : s.loops)
      if (isIterator(s.indices[d], *f)) loop = f;
    int64_t b, e;
    if (!loop || loop->step != 1 || !constValue(loop->begin, &b) || !constValue(loop->end, &e) || b != 0 ||
        e != shape[d])
      return std::nullopt;
    for (auto* other : perDim)
      if (other == loop) return std::nullopt;
    perDim.push_back(loop);
  }
  return perDim;
}

// A later read or update `a` sees only elements the store wrote: in each
// dimension whose loop also encloses `a`, `a` uses that loop's iterator.
bool seesWrittenElements(const Access& a, const Access& store, const std::vector<const For*>& perDim) {
  if (a.indices.size() != perDim.size()) return false;
  for (size_t d = 0; d < perDim.size(); ++d) {
    bool encloses = false;
    for (size_t k = 0; k < a.loops.size() && k < store.loops.size() && a.loops[k] == store.loops[k]; ++k)
      encloses = encloses || a.loops[k] == perDim[d];
    if (encloses && !isIterator(a.indices[d], *perDim[d])) return false;
  }
  return true;
}

// Every element of `t` is stored before `scopes`, run in order, read it.
bool storedFirst(const TensorDecl& t, const std::vector<StmtP>& scopes) {
  Accesses walk(t.name);
  for (auto& n : scopes) walk.visit(n);
  if (walk.unknown || walk.found.empty()) return false;
  const Access& first = walk.found.front();
  auto perDim = coveringLoops(first, t.shape, t.name);
  if (!perDim) return false;
  for (size_t k = 1; k < walk.found.size(); ++k)
    if (!walk.found[k].store && !seesWrittenElements(walk.found[k], first, *perDim)) return false;
  return true;
}

}  // namespace

std::set<std::string> writtenBeforeRead(const Program& p) {
  std::set<std::string> out;
  for (auto& t : p.tensors)
    if (storedFirst(t, p.nests)) out.insert(t.name);
  return out;
}

std::set<std::string> temporariesWrittenBeforeRead(const Program& p) {
  std::map<std::string, int> defined;
  std::vector<const VarDef*> temporaries;
  for (auto& n : p.nests)
    forEachStmt(n, [&](const StmtP& s) {
      if (s->kind != StmtKind::VarDef) return;
      auto& v = s->as<VarDef>();
      if (++defined[v.decl.name] == 1 && !v.loopLocal) temporaries.push_back(&v);
    });
  std::set<std::string> out;
  for (auto* v : temporaries)
    if (defined[v->decl.name] == 1 && !p.find(v->decl.name) && storedFirst(v->decl, {v->body}))
      out.insert(v->decl.name);
  return out;
}

}  // namespace teml::analysis
