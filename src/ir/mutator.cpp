#include "ir/mutator.hpp"

#include "ir/accesses.hpp"
#include "ir/visitor.hpp"

namespace teml::ir {

ExprP Mutator::mutate(const ExprP& e) {
  switch (e->kind) {
#define TEML_EXPR_NODE(Kind) \
  case ExprKind::Kind: return mutate##Kind(e);
#include "ir/nodes.def"
  }
  return e;
}

StmtP Mutator::mutate(const StmtP& s) {
  StmtP out = s;
  switch (s->kind) {
#define TEML_STMT_NODE(Kind) \
  case StmtKind::Kind: out = mutate##Kind(s); break;
#include "ir/nodes.def"
  }
  // A statement rebuilt as one of its kind without an identity of its own
  // is the same statement: it keeps its id and provenance.
  bool anonymous = out && out->id.empty() && out->made == Provenance{};
  if (out != s && anonymous && out->kind == s->kind && (!s->id.empty() || !(s->made == Provenance{})))
    return withIdentity(out, s->id, s->made);
  return out;
}

ExprP Mutator::mutateIntConst(const ExprP& e) { return e; }
ExprP Mutator::mutateFloatConst(const ExprP& e) { return e; }
ExprP Mutator::mutateVar(const ExprP& e) { return e; }

StmtP Mutator::mutateVarDef(const StmtP& s) {
  auto& v = static_cast<const VarDef&>(*s);
  StmtP body = mutate(v.body);
  return body == v.body ? s : std::make_shared<VarDef>(v.decl, body, v.loopLocal);
}

StmtP Mutator::mutateAssert(const StmtP& s) {
  auto& a = static_cast<const Assert&>(*s);
  ExprP cond = mutate(a.cond), shown = a.shown ? mutate(a.shown) : nullptr;
  StmtP body = mutate(a.body);
  if (cond == a.cond && shown == a.shown && body == a.body) return s;
  return makeAssert(cond, a.message, shown, a.loc, body);
}

StmtP Mutator::mutateBarrier(const StmtP& s) { return s; }
StmtP Mutator::mutateExchange(const StmtP& s) { return s; }

StmtP Mutator::mutateLibCall(const StmtP& s) {
  auto& c = static_cast<const LibCall&>(*s);
  StmtP ref = mutate(c.reference);
  return ref == c.reference ? s : std::make_shared<LibCall>(c.routine, c.tensors, c.args, ref);
}

std::vector<ExprP> Mutator::mutateAll(const std::vector<ExprP>& es, bool* changed) {
  std::vector<ExprP> out;
  for (auto& e : es) {
    out.push_back(mutate(e));
    if (out.back() != e) *changed = true;
  }
  return out;
}

ExprP Mutator::mutateLoad(const ExprP& e) {
  auto& l = static_cast<const Load&>(*e);
  bool changed = false;
  auto idx = mutateAll(l.indices, &changed);
  return changed ? load(l.tensor, std::move(idx), l.dtype) : e;
}

ExprP Mutator::mutateUnary(const ExprP& e) {
  auto& u = static_cast<const Unary&>(*e);
  ExprP x = mutate(u.a);
  return x == u.a ? e : unary(u.op, x);
}

ExprP Mutator::mutateCast(const ExprP& e) {
  auto& c = static_cast<const Cast&>(*e);
  ExprP x = mutate(c.a);
  return x == c.a ? e : cast(c.dtype, x);
}

ExprP Mutator::mutateSelect(const ExprP& e) {
  auto& s = static_cast<const Select&>(*e);
  ExprP c = mutate(s.cond), x = mutate(s.a), y = mutate(s.b);
  return (c == s.cond && x == s.a && y == s.b) ? e : select(c, x, y);
}

ExprP Mutator::mutateBinary(const ExprP& e) {
  auto& b = static_cast<const Binary&>(*e);
  ExprP x = mutate(b.a), y = mutate(b.b);
  return (x == b.a && y == b.b) ? e : binary(b.op, x, y);
}

StmtP Mutator::mutateFor(const StmtP& s) {
  auto& f = static_cast<const For&>(*s);
  ExprP b = mutate(f.begin), e = mutate(f.end);
  StmtP body = mutate(f.body);
  if (b == f.begin && e == f.end && body == f.body) return s;
  return makeFor(f.id, f.var, b, e, f.step, f.loopKind, body, {}, f.made);
}

StmtTag Mutator::mutateTag(const StmtTag& tag, bool* changed) {
  StmtTag out = tag;
  out.origin = mutateAll(tag.origin, changed);
  return out;
}

StmtP Mutator::mutateStore(const StmtP& s) {
  auto& st = static_cast<const Store&>(*s);
  bool changed = false;
  auto idx = mutateAll(st.indices, &changed);
  StmtTag tag = mutateTag(st.tag, &changed);
  ExprP v = mutate(st.value);
  if (!changed && v == st.value) return s;
  return makeStore(st.tensor, std::move(idx), v, st.loc, std::move(tag));
}

StmtP Mutator::mutateReduce(const StmtP& s) {
  auto& r = static_cast<const Reduce&>(*s);
  bool changed = false;
  auto idx = mutateAll(r.indices, &changed);
  StmtTag tag = mutateTag(r.tag, &changed);
  ExprP v = mutate(r.value);
  if (!changed && v == r.value) return s;
  return makeReduce(r.op, r.tensor, std::move(idx), v, r.loc, std::move(tag), r.atomic);
}

StmtP Mutator::mutateSeq(const StmtP& s) {
  auto& q = static_cast<const Seq&>(*s);
  std::vector<StmtP> out;
  bool changed = false;
  for (auto& t : q.stmts) {
    out.push_back(mutate(t));
    if (out.back() != t) changed = true;
  }
  return changed ? makeSeq(std::move(out)) : s;
}

StmtP Mutator::mutateIf(const StmtP& s) {
  auto& i = static_cast<const If&>(*s);
  ExprP c = mutate(i.cond);
  StmtP t = mutate(i.then);
  StmtP o = i.otherwise ? mutate(i.otherwise) : nullptr;
  if (c == i.cond && t == i.then && o == i.otherwise) return s;
  return makeIf(c, t, o);
}

namespace {
class Substituter : public Mutator {
 public:
  explicit Substituter(const std::map<std::string, ExprP>& m) : subst_(m) {}

 protected:
  ExprP mutateVar(const ExprP& e) override {
    auto it = subst_.find(static_cast<const Var&>(*e).name);
    return it == subst_.end() ? e : it->second;
  }
  StmtP mutateFor(const StmtP& s) override {
    auto& f = static_cast<const For&>(*s);
    ExprP b = mutate(f.begin), e = mutate(f.end);
    StmtP body = f.body;
    if (subst_.count(f.var)) {  // the loop rebinds the name: do not substitute inside
      auto saved = subst_;
      subst_.erase(f.var);
      body = mutate(f.body);
      subst_ = saved;
    } else {
      body = mutate(f.body);
    }
    if (b == f.begin && e == f.end && body == f.body) return s;
    return makeFor(f.id, f.var, b, e, f.step, f.loopKind, body, {}, f.made);
  }

 private:
  std::map<std::string, ExprP> subst_;
};
}  // namespace

ExprP substitute(const ExprP& e, const std::map<std::string, ExprP>& subst) {
  Substituter m(subst);
  return m.mutate(e);
}

StmtP substitute(const StmtP& s, const std::map<std::string, ExprP>& subst) {
  Substituter m(subst);
  return m.mutate(s);
}

namespace {
// Pre-order over the nodes a Visitor reaches: expressions or statements.
class ExprWalk : public Visitor {
 public:
  explicit ExprWalk(const std::function<void(const ExprP&)>& f) : f_(f) {}
  using Visitor::visit;
  void visit(const ExprP& e) override {
    f_(e);
    Visitor::visit(e);
  }

 private:
  const std::function<void(const ExprP&)>& f_;
};

class StmtWalk : public Visitor {
 public:
  explicit StmtWalk(const std::function<void(const StmtP&)>& f) : f_(f) {}
  using Visitor::visit;
  void visit(const StmtP& s) override {
    f_(s);
    Visitor::visit(s);
  }
  void visit(const ExprP&) override {}  // statements only

 private:
  const std::function<void(const StmtP&)>& f_;
};
}  // namespace

void forEachExpr(const ExprP& e, const std::function<void(const ExprP&)>& f) { ExprWalk(f).visit(e); }

void forEachStmt(const StmtP& s, const std::function<void(const StmtP&)>& f) { StmtWalk(f).visit(s); }

void forEachExprIn(const StmtP& s, const std::function<void(const ExprP&)>& f) { ExprWalk(f).visit(s); }

std::set<std::string> tensorsAccessed(const StmtP& s) {
  std::set<std::string> used;
  for (auto& a : accessesOf(s)) used.insert(a.tensor);
  return used;
}

std::set<std::string> tensorsWritten(const StmtP& s) {
  std::set<std::string> written;
  for (auto& a : accessesOf(s))
    if (a.kind != AccessKind::Read) written.insert(a.tensor);
  return written;
}

std::vector<LocalOf> localTensorsIn(const StmtP& s) {
  std::vector<LocalOf> out;
  forEachStmt(s, [&](const StmtP& t) {
    if (t->kind != StmtKind::For) return;
    auto& f = static_cast<const For&>(*t);
    for (auto& l : localsOf(f)) out.push_back({&f, l});
  });
  return out;
}

}  // namespace teml::ir
