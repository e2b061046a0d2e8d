#include "lowering/reduction_init.hpp"

#include <algorithm>

#include "analysis/coverage.hpp"
#include "analysis/local_box.hpp"
#include "ir/accesses.hpp"
#include "ir/mutator.hpp"

namespace teml::lowering {

using namespace ir;

namespace {

struct Uses {
  bool loads = false;                      // reads of the tensor
  std::vector<const Reduce*> reduces;      // reductions into it
  std::vector<const Store*> stores;        // stores into it
  std::vector<const std::vector<ExprP>*> indices() const {
    std::vector<const std::vector<ExprP>*> out;
    for (auto* r : reduces) out.push_back(&r->indices);
    for (auto* s : stores) out.push_back(&s->indices);
    return out;
  }
};

Uses usesOf(const StmtP& s, const std::string& t) {
  Uses u;
  for (auto& a : accessesOf(s)) {
    if (a.tensor != t) continue;
    if (a.kind == AccessKind::Store) u.stores.push_back(static_cast<const Store*>(a.stmt));
    if (a.kind == AccessKind::Reduce) u.reduces.push_back(static_cast<const Reduce*>(a.stmt));
    if (a.kind == AccessKind::Read) u.loads = true;
  }
  return u;
}

bool usesAny(const std::vector<ExprP>& idx, const std::set<std::string>& vars) {
  for (auto& e : idx)
    for (auto& v : vars)
      if (usesVar(e, v)) return true;
  return false;
}

// Walks a statement whose accesses of t are all reductions, or all stores.
// Down the loops the accessed elements move with, below which every
// element stays fixed, it sets each reduced element to `init` before its
// reductions (stored elements need nothing); a body that is a sequence (a
// main loop and its remainder) is walked statement by statement. Each such
// place is one group of `groups`: the loops around it and the elements it
// sets, different iterations of those loops setting different elements.
// False when the statement is not of that form.
class FirstReductions {
 public:
  // `inLoops`: the values set only inside a loop that moves the elements (an
  // output's zeros: not a loop of its own in front of the nest).
  FirstReductions(std::string t, double init, bool inLoops = false) : t_(std::move(t)), init_(init), inLoops_(inLoops) {}

  bool visit(const StmtP& s, std::vector<const For*>& loops, StmtP* out) {
    Uses u = usesOf(s, t_);
    // Either only reductions (each element set first) or only stores.
    if (u.loads || (!u.reduces.empty() && !u.stores.empty())) return false;
    auto idx = u.indices();
    if (idx.empty()) {
      *out = s;
      return true;
    }
    auto indexUses = [&](const std::string& v) {
      for (auto* i : idx)
        for (auto& e : *i)
          if (usesVar(e, v)) return true;
      return false;
    };
    // Down every loop that moves an element, or holds one that does (the
    // block loop of a strip-mined pair).
    bool moves = false;
    forEachStmt(s, [&](const StmtP& x) { moves |= x->kind == StmtKind::For && indexUses(x->as<For>().var); });
    if (s->kind == StmtKind::For && moves) {
      auto& f = s->as<For>();
      if (inLoops_ && !indexUses(f.var) && u.stores.empty() && initBefore(f, idx, loops, out)) return true;
      loops.push_back(&f);
      StmtP body;
      bool ok = visit(loopBody(f), loops, &body);
      loops.pop_back();
      *out = withBody(f, body);  // the same loop (separate_tail's remainder stays one for single_iteration_loops)
      return ok;
    }
    // Into a run-time check around such loops (a CSR row's bounds): where it
    // fails the call stops, so it does not matter which elements were set.
    if (s->kind == StmtKind::Assert && moves) {
      auto& a = s->as<Assert>();
      StmtP body;
      if (!visit(a.body, loops, &body)) return false;
      *out = std::make_shared<Assert>(a.cond, a.message, a.shown, a.loc, body, a.id, a.made);
      return true;
    }
    std::set<std::string> innerVars;
    forEachStmt(s, [&](const StmtP& x) {
      if (x->kind == StmtKind::For) innerVars.insert(x->as<For>().var);
    });
    bool fixed = true;
    for (auto* i : idx) fixed = fixed && !usesAny(*i, innerVars);
    if (!fixed) {
      if (s->kind != StmtKind::Seq) return false;
      std::vector<StmtP> parts;
      for (auto& item : s->as<Seq>().stmts) {
        parts.emplace_back();
        if (!visit(item, loops, &parts.back())) return false;
      }
      *out = makeSeq(parts);
      return true;
    }
    // A guard here that does not move with the loops inside may be what keeps
    // the element in bounds (interchange's partial block: 5 * q_o + q < K):
    // the zeros set in front of it would land outside the tensor.
    bool guarded = false;
    forEachStmt(s, [&](const StmtP& x) {
      if (x->kind != StmtKind::If || usesOf(x, t_).reduces.empty()) return;
      bool varies = false;
      for (auto& v : innerVars) varies |= usesVar(x->as<If>().cond, v);
      guarded |= !varies;
    });
    if (guarded) return false;
    // Stores count only where they surely run: directly here, not in a loop
    // that might not run or under a guard.
    for (auto* st : u.stores) {
      bool direct = false;
      for (auto& x : items(s)) direct |= x.get() == st;
      if (!direct) return false;
    }
    analysis::AccessGroup g{loops, {}};
    for (auto* i : idx) {
      bool seen = false;
      for (auto& e : g.accesses) {
        bool same = e.size() == i->size();
        for (size_t d = 0; same && d < e.size(); ++d) same = equal(e[d], (*i)[d]);
        seen |= same;
      }
      if (!seen) g.accesses.push_back(*i);
    }
    if (!analysis::iterationsDisjoint(g.loops, g.accesses)) return false;
    if (inLoops_ && u.stores.empty() && loops.empty()) return false;
    std::vector<StmtP> body;
    if (u.stores.empty()) {
      // Identified as the start of the first reduction, once per element.
      const Reduce& first = *u.reduces.front();
      StmtTag tag{first.tag.id + ".init", {}, {}};
      for (auto* l : loops) {
        tag.names.push_back(l->var);
        tag.origin.push_back(var(l->var));
      }
      for (auto& e : g.accesses)
        body.push_back(withIdentity(makeStore(t_, e, floatConst(init_), first.loc, tag), "",
                                    Provenance{first.loc, "lowering", first.id}));
    }
    for (auto& x : items(s)) body.push_back(x);
    *out = makeSeq(body);
    groups.push_back(std::move(g));
    return true;
  }

  std::vector<analysis::AccessGroup> groups;

 private:
  // A loop `f` that does not move the reduced elements, around loops that
  // do (an embedding bag's `for l: for d: y[b, d] += ...`, d kept inside l):
  // the elements set in loops of their own, copies of those, before f. One
  // subscript list, over the outer loops and loops inside f of constant
  // bounds, one loop per iterator.
  bool initBefore(const For& f, const std::vector<const std::vector<ExprP>*>& idx, std::vector<const For*>& loops,
                  StmtP* out) {
    if (loops.empty()) return false;
    for (auto* i : idx) {
      bool same = i->size() == idx[0]->size();
      for (size_t d = 0; same && d < i->size(); ++d) same = equal((*i)[d], (*idx[0])[d]);
      if (!same) return false;
    }
    std::vector<const For*> inner;
    std::set<std::string> names;
    bool twice = false;  // a loop and its remainder, say: which one to copy is not clear
    forEachStmt(f.body, [&](const StmtP& x) {
      if (x->kind != StmtKind::For) return;
      twice |= !names.insert(x->as<For>().var).second;
      inner.push_back(&x->as<For>());
    });
    if (twice) return false;
    std::set<std::string> outer;
    for (auto* l : loops) outer.insert(l->var);
    std::vector<const For*> chain;  // the loops inside f that move the elements, outermost first
    for (auto* l : inner) {
      bool moves = false;
      for (auto& e : *idx[0]) moves |= usesVar(e, l->var);
      int64_t from = 0, to = 0;
      if (!moves) continue;
      if (!constValue(l->begin, &from) || !constValue(l->end, &to)) return false;
      chain.push_back(l);
    }
    bool known = true;
    for (auto& e : *idx[0])
      forEachExpr(e, [&](const ExprP& x) {
        if (x->kind == ExprKind::Load) known = false;  // a computed subscript
        if (x->kind != ExprKind::Var) return;
        bool mine = outer.count(x->as<Var>().name) > 0;
        for (auto* l : chain) mine |= l->var == x->as<Var>().name;
        known &= mine;
      });
    if (!known) return false;
    const Reduce* first = nullptr;
    forEachStmt(f.body, [&](const StmtP& x) {
      if (!first && x->kind == StmtKind::Reduce && x->as<Reduce>().tensor == t_) first = &x->as<Reduce>();
    });
    StmtTag tag{first->tag.id + ".init", {}, {}};
    for (auto* l : loops) tag.names.push_back(l->var), tag.origin.push_back(var(l->var));
    for (auto* l : chain) tag.names.push_back(l->var), tag.origin.push_back(var(l->var));
    StmtP init = withIdentity(makeStore(t_, *idx[0], floatConst(init_), first->loc, tag), "",
                              Provenance{first->loc, "lowering", first->id});
    for (size_t k = chain.size(); k-- > 0;)
      init = makeFor(chain[k]->id + ".init", chain[k]->var, chain[k]->begin, chain[k]->end, chain[k]->step,
                     LoopKind{}, init);
    analysis::AccessGroup g{loops, {*idx[0]}};
    for (const StmtP* x = &init; (*x)->kind == StmtKind::For; x = &(*x)->as<For>().body) g.loops.push_back(&(*x)->as<For>());
    if (!analysis::iterationsDisjoint(g.loops, g.accesses)) return false;
    *out = makeSeq({init, f.self()});
    groups.push_back(std::move(g));
    return true;
  }

  std::string t_;
  double init_;
  bool inLoops_;
};

// The body of `owner` with `local` set to its initial value before its first
// reductions, or null when that is not provably equivalent to filling the
// box: the first statements using it must only reduce into it, and together
// reduce into every element of the box, each element in one place.
StmtP initBeforeFirstReduction(const For& owner, const LocalTensor& local) {
  const std::string& t = local.decl.name;
  analysis::LocalBox box;
  std::string why;
  if (!analysis::localBox(owner.body, t, &box, &why)) return nullptr;
  std::vector<StmtP> stmts = items(loopBody(owner));
  FirstReductions first(t, local.init);
  for (size_t k = 0; k < stmts.size(); ++k) {
    if (!tensorsAccessed(stmts[k]).count(t)) continue;
    std::vector<const For*> loops;
    StmtP rewritten;
    if (!first.visit(stmts[k], loops, &rewritten)) return nullptr;
    stmts[k] = rewritten;
    if (analysis::groupsTileBox(first.groups, box, local.decl.shape)) return makeSeq(stmts);
  }
  return nullptr;
}

class InitAtFirstReduction : public Mutator {
 protected:
  StmtP mutateFor(const StmtP& s) override {
    StmtP m = Mutator::mutateFor(s);
    auto* f = static_cast<const For*>(m.get());
    auto locals = localsOf(*f);
    for (size_t i = 0; i < locals.size(); ++i) {
      const LocalTensor l = locals[i];
      if (l.isCopy || l.writtenBeforeRead) continue;
      StmtP body = initBeforeFirstReduction(*f, l);
      if (!body) continue;
      locals[i].writtenBeforeRead = true;
      m = makeFor(f->id, f->var, f->begin, f->end, f->step, f->loopKind, body, locals, f->made);
      f = static_cast<const For*>(m.get());
    }
    return m;
  }
};

}  // namespace

StmtP initLocalsAtFirstReduction(const StmtP& nest) { return InitAtFirstReduction().mutate(nest); }

bool setsOutputsAtFirstReduction(const target::Target& target) {
  return target.kind == target::Kind::Cpu && target.ranks <= 1;
}

std::set<std::string> initOutputsAtFirstReduction(Program& p) {
  std::set<std::string> set;
  for (auto& t : p.tensors) {
    auto role = p.roles.find(t.name);
    if (role == p.roles.end() || role->second != TensorRole::Output || (t.dtype != DType::F32 && t.dtype != DType::F64))
      continue;
    if (p.initialValues.count(t.name) || set.count(t.name)) continue;
    // The first nest that touches it: the output is zero there, as the caller gave it.
    auto first = std::find_if(p.nests.begin(), p.nests.end(),
                              [&](const StmtP& n) { return tensorsAccessed(n).count(t.name) > 0; });
    if (first == p.nests.end()) continue;
    analysis::LocalBox whole;
    whole.used = true;
    for (auto extent : t.shape) whole.offset.push_back(intConst(0)), whole.extent.push_back(extent);
    // Loop-local tensors keep the nest as scheduled for their own first reductions (above).
    bool locals = false;
    forEachStmt(*first, [&](const StmtP& x) {
      locals |= (x->kind == StmtKind::VarDef && x->as<VarDef>().loopLocal) ||
                (x->kind == StmtKind::For && !localsOf(x->as<For>()).empty());
    });
    if (locals) continue;
    std::vector<StmtP> stmts = items(*first);
    FirstReductions reductions(t.name, 0.0, true);
    for (size_t k = 0; k < stmts.size(); ++k) {
      if (!tensorsAccessed(stmts[k]).count(t.name)) continue;
      std::vector<const For*> loops;
      StmtP rewritten;
      if (!reductions.visit(stmts[k], loops, &rewritten)) break;
      stmts[k] = rewritten;
      if (analysis::groupsTileBox(reductions.groups, whole, t.shape)) {
        // Only reductions set it there (stores need no zeros, and the
        // program's own analysis finds those).
        bool reduced = false;
        for (auto& a : accessesOf(*first)) reduced |= a.tensor == t.name && a.kind == AccessKind::Reduce;
        if (reduced) *first = stmts.size() == 1 ? stmts[0] : makeSeq(stmts), set.insert(t.name);
        break;
      }
    }
  }
  return set;
}

}  // namespace teml::lowering
