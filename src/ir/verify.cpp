#include "ir/verify.hpp"

#include <map>
#include <set>

#include "ir/printer.hpp"
#include "ir/visitor.hpp"

namespace teml::ir {

namespace {

class Verifier : public Visitor {
 public:
  explicit Verifier(const std::vector<TensorDecl>& tensors) {
    for (auto& t : tensors) tensors_[t.name] = &t;
  }
  std::string problem;

  using Visitor::visit;
  void visit(const StmtP& s) override {
    if (problem.empty()) Visitor::visit(s);
  }

 protected:
  void visitFor(const For& f) override {
    integral(f.begin, "the start of loop '" + f.var + "'");
    integral(f.end, "the end of loop '" + f.var + "'");
    if (f.step == 0) fail("loop '" + f.var + "' has step 0");
    visit(f.begin);
    visit(f.end);
    if (iterators_.count(f.var)) fail("loop '" + f.var + "' rebinds the iterator of a loop around it");
    iterators_.insert(f.var);
    // A loop's local tensor is a program tensor given a fresh copy per
    // iteration (schedule::local, cache): it may take a program tensor's name.
    auto saved = tensors_;
    for (auto& l : f.locals) tensors_[l.decl.name] = &l.decl;
    visit(f.body);
    tensors_ = saved;
    iterators_.erase(f.var);
  }
  void visitVarDef(const VarDef& v) override {
    if (!define(v.decl)) return;
    visit(v.body);
    tensors_.erase(v.decl.name);
  }
  void visitStore(const Store& st) override {
    access(st.tensor, st.indices);
    Visitor::visitStore(st);
  }
  void visitReduce(const Reduce& r) override {
    access(r.tensor, r.indices);
    Visitor::visitReduce(r);
  }
  void visitIf(const If& i) override {
    integral(i.cond, "a branch condition");
    Visitor::visitIf(i);
  }
  void visitLoad(const Load& l) override {
    if (const TensorDecl* d = access(l.tensor, l.indices); d && d->dtype != l.dtype)
      fail("a load of '" + l.tensor + "' is typed " + dtypeName(l.dtype) + " but the tensor holds " +
           dtypeName(d->dtype));
    Visitor::visitLoad(l);
  }
  void visitVar(const Var& v) override {
    if (!iterators_.count(v.name)) fail("iterator '" + v.name + "' is used outside a loop that binds it");
  }
  void visitAssert(const Assert& a) override {
    integral(a.cond, "an assertion's condition");
    if (a.shown) integral(a.shown, "the value an assertion shows");
    Visitor::visitAssert(a);
  }
  void visitSelect(const Select& s) override {
    integral(s.cond, "a select's condition");
    Visitor::visitSelect(s);
  }

 private:
  void fail(const std::string& what) {
    if (problem.empty()) problem = what;
  }
  void integral(const ExprP& e, const std::string& what) {
    if (!e->isInt()) fail(what + " (" + toString(e) + ") is " + dtypeName(e->dtype) + ", not an integer");
  }
  bool define(const TensorDecl& d) {
    if (tensors_.count(d.name)) {
      fail("tensor '" + d.name + "' is defined again inside its own scope");
      return false;
    }
    tensors_[d.name] = &d;
    return true;
  }
  const TensorDecl* access(const std::string& tensor, const std::vector<ExprP>& idx) {
    auto it = tensors_.find(tensor);
    if (it == tensors_.end()) {
      fail("tensor '" + tensor + "' is accessed outside any definition of it");
      return nullptr;
    }
    if (idx.size() != it->second->shape.size())
      fail("tensor '" + tensor + "' has " + std::to_string(it->second->shape.size()) + " dimensions but is indexed with " +
           std::to_string(idx.size()));
    for (auto& i : idx) integral(i, "an index of '" + tensor + "'");
    return it->second;
  }

  std::map<std::string, const TensorDecl*> tensors_;
  std::set<std::string> iterators_;
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
