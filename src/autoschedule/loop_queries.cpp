#include "autoschedule/loop_queries.hpp"

#include "ir/mutator.hpp"
#include "ir/visitor.hpp"

namespace teml::autoschedule {

using namespace ir;

namespace {

// Records each loop it meets and does not look inside it.
class Outermost : public Visitor {
 public:
  std::vector<std::string> loops;

 protected:
  void visitFor(const For& f) override { loops.push_back(f.id); }
};

bool hasLoop(const StmtP& s) {
  bool found = false;
  forEachStmt(s, [&](const StmtP& t) { found = found || t->kind == StmtKind::For; });
  return found;
}

}  // namespace

std::vector<std::string> outermostLoops(const StmtP& s) {
  Outermost walk;
  walk.visit(s);
  return walk.loops;
}

std::vector<std::string> perfectChain(const StmtP& s, const std::string& loop) {
  std::vector<std::string> chain;
  for (const For* f = loopWithId(s, loop); f;) {
    chain.push_back(f->id);
    const Stmt* body = f->body.get();
    while (body->kind == StmtKind::VarDef) body = body->as<VarDef>().body.get();
    f = body->kind == StmtKind::For ? static_cast<const For*>(body) : nullptr;
  }
  return chain;
}

std::vector<std::string> innermostLoops(const StmtP& s) {
  std::vector<std::string> out;
  forEachStmt(s, [&](const StmtP& t) {
    if (t->kind == StmtKind::For && !hasLoop(t->as<For>().body)) out.push_back(t->id);
  });
  return out;
}

const For* loopWithId(const StmtP& s, const std::string& id) {
  const For* found = nullptr;
  forEachStmt(s, [&](const StmtP& t) {
    if (!found && t->kind == StmtKind::For && t->id == id) found = static_cast<const For*>(t.get());
  });
  return found;
}

int64_t constantTrips(const For& f) {
  int64_t b, e;
  if (f.step != 1 || !constValue(f.begin, &b) || !constValue(f.end, &e)) return -1;
  return e - b;
}

std::vector<StmtP> bodyItems(const For& f) {
  StmtP inner = loopBody(f);
  while (inner->kind == StmtKind::VarDef && !inner->as<VarDef>().loopLocal) inner = inner->as<VarDef>().body;
  return items(inner);
}

bool isVar(const ExprP& e, const std::string& v) {
  return e->kind == ExprKind::Var && e->as<Var>().name == v;
}

}  // namespace teml::autoschedule
