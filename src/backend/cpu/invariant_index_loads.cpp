#include "backend/cpu/invariant_index_loads.hpp"

#include <map>
#include <set>

#include "ir/mutator.hpp"
#include "ir/printer.hpp"

namespace teml::codegen {

using namespace ir;

namespace {

// Replaces the invariant loads in subscripts, one variable per distinct load.
class IndexLoadHoister : public Mutator {
 public:
  IndexLoadHoister(std::set<std::string> bound, std::set<std::string> written,
                   const std::function<std::string()>& freshVar, std::vector<HoistedIndexLoad>& hoisted)
      : bound_(std::move(bound)), written_(std::move(written)), freshVar_(freshVar), hoisted_(hoisted) {}

  StmtP statement(const StmtP& s) {
    if (s->kind == StmtKind::Seq) {
      std::vector<StmtP> out;
      bool changed = false;
      for (auto& t : s->as<Seq>().stmts) {
        out.push_back(statement(t));
        changed = changed || out.back() != t;
      }
      return changed ? std::make_shared<Seq>(out, s->id, s->made) : s;
    }
    // Only statements every iteration runs: a load under a branch may be one
    // the program never makes (an index checked first).
    if (s->kind == StmtKind::Store || s->kind == StmtKind::Reduce) return mutate(s);
    return s;
  }

 protected:
  // In a value, a load stays; its subscripts are searched. In a subscript, an
  // invariant load becomes a variable, any other is searched in turn.
  ExprP mutateLoad(const ExprP& e) override {
    if (inSubscript_ && invariant(e)) return variableFor(e);
    auto& l = e->as<Load>();
    std::vector<ExprP> indices = subscripts(l.indices);
    return indices == l.indices ? e : load(l.tensor, indices, e->dtype);
  }
  // A select evaluates only the operand it chooses: a load in either may be
  // one its condition guards, so nothing inside is read early.
  ExprP mutateSelect(const ExprP& e) override { return e; }
  StmtP mutateStore(const StmtP& s) override {
    auto& st = s->as<Store>();
    std::vector<ExprP> indices = subscripts(st.indices);
    ExprP value = mutate(st.value);
    if (indices == st.indices && value == st.value) return s;
    return std::make_shared<Store>(st.tensor, indices, value, st.loc, st.tag, s->id, s->made);
  }
  StmtP mutateReduce(const StmtP& s) override {
    auto& r = s->as<Reduce>();
    std::vector<ExprP> indices = subscripts(r.indices);
    ExprP value = mutate(r.value);
    if (indices == r.indices && value == r.value) return s;
    return std::make_shared<Reduce>(r.op, r.tensor, indices, value, r.loc, r.tag, r.atomic, s->id, s->made);
  }

 private:
  std::vector<ExprP> subscripts(const std::vector<ExprP>& indices) {
    bool outer = inSubscript_;
    inSubscript_ = true;
    std::vector<ExprP> out;
    for (auto& i : indices) out.push_back(mutate(i));
    inSubscript_ = outer;
    return out;
  }

  bool invariant(const ExprP& e) const {
    bool ok = true;
    forEachExpr(e, [&](const ExprP& x) {
      if (x->kind == ExprKind::Var) ok = ok && !bound_.count(x->as<Var>().name);
      if (x->kind == ExprKind::Load) ok = ok && !written_.count(x->as<Load>().tensor);
    });
    return ok;
  }

  ExprP variableFor(const ExprP& e) {
    std::string key = toString(e);
    auto it = byText_.find(key);
    if (it == byText_.end()) {
      hoisted_.push_back({freshVar_(), e});
      it = byText_.emplace(key, hoisted_.back().var).first;
    }
    return cast(e->dtype, var(it->second));
  }

  std::set<std::string> bound_, written_;
  const std::function<std::string()>& freshVar_;
  std::vector<HoistedIndexLoad>& hoisted_;
  std::map<std::string, std::string> byText_;
  bool inSubscript_ = false;
};

}  // namespace

StmtP hoistInvariantIndexLoads(const For& f, const std::function<std::string()>& freshVar,
                               std::vector<HoistedIndexLoad>& hoisted) {
  std::set<std::string> bound{f.var};
  bool opaque = false;  // library calls and exchanges write what no Store names
  forEachStmt(f.body, [&](const StmtP& s) {
    if (s->kind == StmtKind::For) bound.insert(s->as<For>().var);
    opaque = opaque || s->kind == StmtKind::LibCall || s->kind == StmtKind::Exchange;
  });
  StmtP self = f.self();
  if (opaque) return self;
  IndexLoadHoister hoister(bound, tensorsWritten(f.body), freshVar, hoisted);
  StmtP body = hoister.statement(f.body);
  if (body == f.body) return self;
  return std::make_shared<For>(f.id, f.var, f.begin, f.end, f.step, f.loopKind, body, f.made);
}

}  // namespace teml::codegen
