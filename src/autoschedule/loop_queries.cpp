#include "autoschedule/loop_queries.hpp"

#include "ir/mutator.hpp"

namespace teml::autoschedule {

using namespace ir;

namespace {

void outermost(const StmtP& s, std::vector<std::string>* out) {
  switch (s->kind) {
    case StmtKind::For: out->push_back(s->id); break;
    case StmtKind::Seq:
      for (auto& t : static_cast<const Seq&>(*s).stmts) outermost(t, out);
      break;
    case StmtKind::VarDef: outermost(static_cast<const VarDef&>(*s).body, out); break;
    case StmtKind::If: {
      auto& i = static_cast<const If&>(*s);
      outermost(i.then, out);
      if (i.otherwise) outermost(i.otherwise, out);
      break;
    }
    case StmtKind::Assert: outermost(static_cast<const Assert&>(*s).body, out); break;
    default: break;
  }
}

bool hasLoop(const StmtP& s) {
  bool found = false;
  forEachStmt(s, [&](const StmtP& t) { found = found || t->kind == StmtKind::For; });
  return found;
}

}  // namespace

std::vector<std::string> outermostLoops(const StmtP& s) {
  std::vector<std::string> out;
  outermost(s, &out);
  return out;
}

std::vector<std::string> perfectChain(const StmtP& s, const std::string& loop) {
  std::vector<std::string> chain;
  for (const For* f = loopWithId(s, loop); f;) {
    chain.push_back(f->id);
    const Stmt* body = f->body.get();
    while (body->kind == StmtKind::VarDef) body = static_cast<const VarDef&>(*body).body.get();
    f = body->kind == StmtKind::For ? static_cast<const For*>(body) : nullptr;
  }
  return chain;
}

std::vector<std::string> innermostLoops(const StmtP& s) {
  std::vector<std::string> out;
  forEachStmt(s, [&](const StmtP& t) {
    if (t->kind == StmtKind::For && !hasLoop(static_cast<const For&>(*t).body)) out.push_back(t->id);
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

}  // namespace teml::autoschedule
