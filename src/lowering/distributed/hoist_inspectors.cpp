#include "lowering/distributed/hoist_inspectors.hpp"

#include <set>

#include "ir/accesses.hpp"
#include "ir/mutator.hpp"

namespace teml::lowering {

using namespace ir;

namespace {

// The requests of an indexed gather as the planner writes them: the marks'
// tensor around the inspector and the requests.
bool isRequests(const StmtP& s) {
  if (s->kind != StmtKind::VarDef) return false;
  auto& body = s->as<VarDef>().body;
  if (body->kind != StmtKind::Seq || body->as<Seq>().stmts.empty()) return false;
  auto& last = body->as<Seq>().stmts.back();
  return last->kind == StmtKind::Exchange && last->as<Exchange>().kind == ExchangeKind::IndexedRequests;
}

// What the loop's iterations may change: tensors it writes (exchanges too)
// or defines.
std::set<std::string> changedIn(const StmtP& body) {
  std::set<std::string> changed = tensorsWritten(body);
  forEachStmt(body, [&](const StmtP& s) {
    if (s->kind == StmtKind::Exchange) changed.insert(s->as<Exchange>().tensor);
    if (s->kind == StmtKind::VarDef) changed.insert(s->as<VarDef>().decl.name);
  });
  return changed;
}

class Hoist : public Mutator {
 public:
  Hoist(const For& loop) : var_(loop.var), changed_(changedIn(loop.body)) {}
  std::vector<StmtP> hoisted;

 protected:
  // Only through the sequences of the loop's body: a step inside a branch
  // or an inner loop runs when they say.
  StmtP mutateSeq(const StmtP& s) override {
    std::vector<StmtP> kept;
    for (auto& item : s->as<Seq>().stmts) {
      if (item->kind == StmtKind::Seq) kept.push_back(mutateSeq(item));
      else if (isRequests(item) && independent(item)) hoisted.push_back(item);
      else kept.push_back(item);
    }
    return makeSeq(std::move(kept));
  }

 private:
  bool independent(const StmtP& requests) const {
    bool ok = true;
    forEachExprIn(requests, [&](const ExprP& e) { ok = ok && !usesVar(e, var_); });
    std::set<std::string> own;  // the marks and the inspector's locals
    forEachStmt(requests, [&](const StmtP& s) {
      if (s->kind == StmtKind::VarDef) own.insert(s->as<VarDef>().decl.name);
    });
    for (auto& t : tensorsAccessed(requests)) ok = ok && (own.count(t) || !changed_.count(t));
    return ok;
  }
  std::string var_;
  std::set<std::string> changed_;
};

}  // namespace

StmtP hoistInspectors(const StmtP& loop) {
  auto& f = loop->as<For>();
  int64_t b, e;
  if (!constValue(f.begin, &b) || !constValue(f.end, &e) || e - b < 2) return loop;
  Hoist h(f);
  StmtP body = h.mutate(f.body);
  if (h.hoisted.empty()) return loop;
  std::vector<StmtP> out = h.hoisted;
  out.push_back(std::make_shared<For>(f.id, f.var, f.begin, f.end, f.step, f.loopKind, body, f.made));
  return makeSeq(std::move(out));
}

}  // namespace teml::lowering
