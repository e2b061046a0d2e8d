#include "ir/accesses.hpp"

#include "ir/visitor.hpp"

namespace teml::ir {

namespace {

class Collector : public Visitor {
 public:
  Collector(AccessOptions options, std::vector<Access>& out) : options_(options), out_(out) {}
  const Stmt* current = nullptr;
  bool inControl = false;

  using Visitor::visit;
  void reads(const ExprP& e, const Stmt* stmt, bool control) {
    const Stmt* savedStmt = current;
    bool savedControl = inControl;
    current = stmt;
    inControl = control;
    visit(e);
    current = savedStmt;
    inControl = savedControl;
  }

 protected:
  void visitLoad(const Load& l) override {
    out_.push_back(Access{AccessKind::Read, l.tensor, l.indices, current, ReduceOp::Add, inControl});
    if (options_.loadsInSubscripts) Visitor::visitLoad(l);
  }
  void visitFor(const For& f) override {
    if (options_.control) {
      reads(f.begin, &f, true);
      reads(f.end, &f, true);
    }
    visit(f.body);
  }
  void visitIf(const If& i) override {
    if (options_.control) reads(i.cond, &i, true);
    visit(i.then);
    if (i.otherwise) visit(i.otherwise);
  }
  void visitAssert(const Assert& a) override {
    if (options_.control) {
      reads(a.cond, &a, true);
      if (a.shown) reads(a.shown, &a, true);
    }
    visit(a.body);
  }
  void visitStore(const Store& st) override {
    readsOfTarget(st.indices, &st);
    reads(st.value, &st, false);
    out_.push_back(Access{AccessKind::Store, st.tensor, st.indices, &st});
  }
  void visitReduce(const Reduce& r) override {
    readsOfTarget(r.indices, &r);
    reads(r.value, &r, false);
    out_.push_back(Access{AccessKind::Reduce, r.tensor, r.indices, &r, r.op});
  }
  void visitLibCall(const LibCall& c) override {
    if (options_.libraryCalls) visit(c.reference);
  }

 private:
  void readsOfTarget(const std::vector<ExprP>& indices, const Stmt* s) {
    if (!options_.loadsInSubscripts) return;
    for (auto& i : indices) reads(i, s, false);
  }

  AccessOptions options_;
  std::vector<Access>& out_;
};

}  // namespace

std::vector<Access> accessesOf(const StmtP& s, AccessOptions options) {
  std::vector<Access> out;
  Collector(options, out).visit(s);
  return out;
}

std::vector<Access> readsOf(const ExprP& e, const Stmt* stmt, bool loadsInSubscripts) {
  std::vector<Access> out;
  AccessOptions options;
  options.loadsInSubscripts = loadsInSubscripts;
  Collector(options, out).reads(e, stmt, false);
  return out;
}

bool reads(const ExprP& e, const std::string& tensor) {
  for (auto& a : readsOf(e))
    if (a.tensor == tensor) return true;
  return false;
}

}  // namespace teml::ir
