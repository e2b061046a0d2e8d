#include "ir/hoist_invariant_checks.hpp"

#include <set>

#include "ir/accesses.hpp"
#include "ir/mutator.hpp"

namespace teml::ir {

namespace {

struct Hoisted {
  ExprP cond, shown;
  std::string message;
  SourceLoc loc;
};

class Hoist : public Mutator {
 protected:
  StmtP mutateFor(const StmtP& s) override {
    StmtP inner = Mutator::mutateFor(s);
    auto& f = static_cast<const For&>(*inner);
    // What the loop changes: its iterator and every tensor it writes or defines.
    std::set<std::string> changed = tensorsWritten(f.body);
    forEachStmt(f.body, [&](const StmtP& t) {
      if (t->kind == StmtKind::VarDef) changed.insert(static_cast<const VarDef&>(*t).decl.name);
    });
    std::vector<Hoisted> out;
    StmtP body = extract(loopBody(f), f.var, changed, out);
    if (out.empty()) return inner;
    StmtP loop = withBody(f, body);
    // A loop that may not run must not check what its body would have.
    ExprP runs = f.step > 0 ? binary(BinOp::Lt, f.begin, f.end) : binary(BinOp::Gt, f.begin, f.end);
    int64_t known;
    bool alwaysRuns = constValue(runs, &known) && known;
    for (auto it = out.rbegin(); it != out.rend(); ++it) {
      ExprP cond = alwaysRuns ? it->cond : binary(BinOp::Or, unary(UnaryOp::Not, runs), it->cond);
      loop = makeAssert(cond, it->message, it->shown, it->loc, loop);
    }
    return loop;
  }

 private:
  // `s` without the checks at its top (through sequences and scoped
  // tensors) that depend on nothing in `changed` nor on `iterator`.
  StmtP extract(const StmtP& s, const std::string& iterator, const std::set<std::string>& changed,
                std::vector<Hoisted>& out) {
    if (s->kind == StmtKind::Seq) {
      std::vector<StmtP> items;
      for (auto& k : static_cast<const Seq&>(*s).stmts) items.push_back(extract(k, iterator, changed, out));
      return makeSeq(items);
    }
    if (s->kind == StmtKind::VarDef) {
      auto& v = static_cast<const VarDef&>(*s);
      StmtP body = extract(v.body, iterator, changed, out);
      return body == v.body ? s : std::make_shared<VarDef>(v.decl, body, v.loopLocal);
    }
    if (s->kind != StmtKind::Assert) return s;
    auto& a = static_cast<const Assert&>(*s);
    bool invariant = !usesVar(a.cond, iterator) && (!a.shown || !usesVar(a.shown, iterator));
    for (auto& r : readsOf(a.cond)) invariant = invariant && !changed.count(r.tensor);
    if (!invariant) return s;
    out.push_back({a.cond, a.shown, a.message, a.loc});
    return extract(a.body, iterator, changed, out);
  }
};

}  // namespace

StmtP hoistInvariantChecks(const StmtP& s) { return Hoist().mutate(s); }

}  // namespace teml::ir
