#include "codegen/reduction_init.hpp"

#include "analysis/coverage.hpp"
#include "analysis/local_box.hpp"
#include "ir/mutator.hpp"

namespace teml::codegen {

using namespace ir;

namespace {

struct Uses {
  bool other = false;                  // loads or stores of the tensor
  std::vector<const Reduce*> reduces;  // reductions into it
};

Uses usesOf(const StmtP& s, const std::string& t) {
  Uses u;
  forEachStmt(s, [&](const StmtP& x) {
    if (x->kind == StmtKind::Store && static_cast<const Store&>(*x).tensor == t) u.other = true;
    if (x->kind == StmtKind::Reduce && static_cast<const Reduce&>(*x).tensor == t)
      u.reduces.push_back(static_cast<const Reduce*>(x.get()));
  });
  forEachStmt(s, [&](const StmtP& x) {
    auto loads = [&](const ExprP& e) {
      forEachExpr(e, [&](const ExprP& y) {
        if (y->kind == ExprKind::Load && static_cast<const Load&>(*y).tensor == t) u.other = true;
      });
    };
    if (x->kind == StmtKind::Store) loads(static_cast<const Store&>(*x).value);
    if (x->kind == StmtKind::Reduce) loads(static_cast<const Reduce&>(*x).value);
    if (x->kind == StmtKind::If) loads(static_cast<const If&>(*x).cond);
  });
  return u;
}

bool usesAny(const std::vector<ExprP>& idx, const std::set<std::string>& vars) {
  for (auto& e : idx)
    for (auto& v : vars)
      if (usesVar(e, v)) return true;
  return false;
}

// The body of `owner` with `local` set to its initial value before its first
// reduction, or null when that is not provably equivalent to filling the box.
StmtP initBeforeFirstReduction(const For& owner, const LocalTensor& local) {
  const std::string& t = local.decl.name;
  std::vector<StmtP> stmts = items(owner.body);
  size_t k = 0;
  while (k < stmts.size() && !tensorsAccessed(stmts[k]).count(t)) ++k;
  if (k == stmts.size()) return nullptr;
  Uses u = usesOf(stmts[k], t);
  if (u.other || u.reduces.empty()) return nullptr;
  // The loops the reductions' indices move with, down from the statement.
  auto indexUses = [&](const std::string& v) {
    for (auto* r : u.reduces)
      for (auto& e : r->indices)
        if (usesVar(e, v)) return true;
    return false;
  };
  std::vector<const For*> loops;
  StmtP inner = stmts[k];
  while (inner->kind == StmtKind::For && indexUses(static_cast<const For&>(*inner).var)) {
    loops.push_back(static_cast<const For*>(inner.get()));
    inner = loops.back()->body;
  }
  // Below them, every reduction's element stays fixed.
  std::set<std::string> innerVars;
  forEachStmt(inner, [&](const StmtP& x) {
    if (x->kind == StmtKind::For) innerVars.insert(static_cast<const For&>(*x).var);
  });
  std::vector<std::vector<ExprP>> elements;
  for (auto* r : u.reduces) {
    if (usesAny(r->indices, innerVars)) return nullptr;
    bool seen = false;
    for (auto& e : elements) {
      bool same = e.size() == r->indices.size();
      for (size_t d = 0; same && d < e.size(); ++d) same = equal(e[d], r->indices[d]);
      seen |= same;
    }
    if (!seen) elements.push_back(r->indices);
  }
  analysis::LocalBox box;
  std::string why;
  if (!analysis::localBox(owner, t, &box, &why) || !analysis::iterationsDisjoint(loops, elements) ||
      !analysis::coversBox(loops, elements, box, local.decl.shape))
    return nullptr;
  std::vector<StmtP> body;
  for (auto& e : elements) body.push_back(makeStore(t, e, floatConst(local.init), u.reduces.front()->loc));
  for (auto& s : items(inner)) body.push_back(s);
  StmtP s = makeSeq(body);
  for (size_t i = loops.size(); i-- > 0;) {
    const For& f = *loops[i];
    s = makeFor(f.id, f.var, f.begin, f.end, f.step, f.loopKind, s, f.locals);
  }
  stmts[k] = s;
  return makeSeq(stmts);
}

class InitAtFirstReduction : public Mutator {
 protected:
  StmtP mutateFor(const StmtP& s) override {
    StmtP m = Mutator::mutateFor(s);
    auto* f = static_cast<const For*>(m.get());
    for (size_t i = 0; i < f->locals.size(); ++i) {
      const LocalTensor& l = f->locals[i];
      if (l.isCopy || l.writtenBeforeRead) continue;
      StmtP body = initBeforeFirstReduction(*f, l);
      if (!body) continue;
      auto locals = f->locals;
      locals[i].writtenBeforeRead = true;
      m = makeFor(f->id, f->var, f->begin, f->end, f->step, f->loopKind, body, locals);
      f = static_cast<const For*>(m.get());
    }
    return m;
  }
};

}  // namespace

StmtP initLocalsAtFirstReduction(const StmtP& nest) { return InitAtFirstReduction().mutate(nest); }

}  // namespace teml::codegen
