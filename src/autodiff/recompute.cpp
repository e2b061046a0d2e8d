#include "autodiff/recompute.hpp"

#include <set>
#include <utility>
#include <vector>

#include "ir/accesses.hpp"
#include "ir/functor.hpp"
#include "ir/mutator.hpp"
#include "ir/visitor.hpp"

namespace teml::autodiff {

using namespace ir;

namespace {

// For every store and reduction of a scope: the tensor it writes and the
// tensors its value, indices and the guards and loop bounds around it read.
class Definitions : public Visitor {
 public:
  std::vector<std::pair<std::string, std::set<std::string>>> out;
  std::set<std::string> defined;  // the tensors defined inside the scope
  using Visitor::visit;

 protected:
  void visitVarDef(const VarDef& v) override {
    defined.insert(v.decl.name);
    visit(v.body);
  }
  void visitFor(const For& f) override {
    size_t mark = context_.size();
    readsOf(f.begin, context_);
    readsOf(f.end, context_);
    visit(f.body);
    context_.resize(mark);
  }
  void visitIf(const If& i) override {
    size_t mark = context_.size();
    readsOf(i.cond, context_);
    visit(i.then);
    if (i.otherwise) visit(i.otherwise);
    context_.resize(mark);
  }
  void visitStore(const Store& st) override { define(st.tensor, st.indices, st.value); }
  void visitReduce(const Reduce& r) override {
    define(r.tensor, r.indices, r.value);
    out.back().second.insert(r.tensor);  // a reduction reads what it adds to
  }
  void visitLibCall(const LibCall&) override {}  // writes a program tensor

 private:
  static void readsOf(const ExprP& e, std::vector<std::string>& into) {
    for (auto& a : ir::readsOf(e)) into.push_back(a.tensor);
  }
  void define(const std::string& tensor, const std::vector<ExprP>& indices, const ExprP& value) {
    std::vector<std::string> reads = context_;
    for (auto& i : indices) readsOf(i, reads);
    readsOf(value, reads);
    out.push_back({tensor, {reads.begin(), reads.end()}});
  }
  std::vector<std::string> context_;
};

// The tensors defined inside the scope that `local` depends on, itself
// included (tensors from outside keep the values their own scopes give them).
std::set<std::string> slice(const StmtP& scope, const std::string& local) {
  Definitions d;
  d.visit(scope);
  std::set<std::string> needed = {local};
  for (bool grew = true; grew;) {
    grew = false;
    for (auto& [tensor, reads] : d.out)
      if (needed.count(tensor))
        for (auto& r : reads)
          if (d.defined.count(r)) grew |= needed.insert(r).second;
  }
  return needed;
}

// The statements that write `needed` tensors, with the loops, guards, checks
// and scopes around them.
class Recompute : public StmtFunctor<StmtP()> {
 public:
  explicit Recompute(std::set<std::string> needed) : needed_(std::move(needed)) {}

 private:
  StmtP visitSeq(const Seq& q) override {
    std::vector<StmtP> out;
    for (auto& x : q.stmts) out.push_back(dispatch(x));
    return makeSeqOfPresent(std::move(out));
  }
  StmtP visitFor(const For& f) override {
    StmtP body = dispatch(f.body);
    if (!body) return nullptr;
    return std::make_shared<For>(f.id + ".again", f.var, f.begin, f.end, f.step, LoopKind{}, body,
                                 Provenance{f.made.loc, "gradient", f.id});
  }
  StmtP visitIf(const If& i) override {
    StmtP then = dispatch(i.then), otherwise = i.otherwise ? dispatch(i.otherwise) : nullptr;
    if (!then && !otherwise) return nullptr;
    return makeIf(i.cond, then ? then : makeSeq({}), otherwise);
  }
  StmtP visitBarrier(const Barrier&) override { return nullptr; }  // made after differentiation
  StmtP visitExchange(const Exchange&) override { return nullptr; }
  StmtP visitAssert(const Assert& a) override {
    StmtP body = dispatch(a.body);
    return body ? makeAssert(a.cond, a.message, a.shown, a.loc, body) : nullptr;
  }
  StmtP visitVarDef(const VarDef& v) override {
    StmtP body = dispatch(v.body);
    if (!body) return nullptr;
    return needed_.count(v.decl.name) ? makeVarDef(v.decl, body) : body;
  }
  StmtP visitStore(const Store& st) override {
    return needed_.count(st.tensor) ? makeStore(st.tensor, st.indices, st.value, st.loc) : nullptr;
  }
  StmtP visitReduce(const Reduce& r) override {
    return needed_.count(r.tensor) ? makeReduce(r.op, r.tensor, r.indices, r.value, r.loc) : nullptr;
  }
  StmtP visitLibCall(const LibCall&) override { return nullptr; }

  std::set<std::string> needed_;
};

}  // namespace

std::set<std::string> recomputedWith(const StmtP& scope, const std::string& local) { return slice(scope, local); }

StmtP recomputation(const StmtP& scope, const std::string& local) {
  return Recompute(slice(scope, local))(scope);
}

}  // namespace teml::autodiff
