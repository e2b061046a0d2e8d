#include "schedule/nest_path.hpp"

#include "ir/mutator.hpp"
#include "schedule/schedule_error.hpp"

namespace teml::schedule {

using namespace ir;

StmtP singleChild(const StmtP& s) {
  if (s->kind == StmtKind::Seq) {
    auto& q = s->as<Seq>();
    if (q.stmts.size() == 1) return singleChild(q.stmts[0]);
  }
  return s;
}

int perfectDepth(const StmtP& nest) {
  int d = 0;
  StmtP cur = singleChild(nest);
  while (cur->kind == StmtKind::For) {
    ++d;
    cur = singleChild(loopBody(cur->as<For>()));
  }
  return d;
}

std::vector<const For*> loopsToLevel(const StmtP& nest, int depth, const std::string& what) {
  if (depth < 1) throw ScheduleError(what + ": loop levels are numbered from 1");
  std::vector<const For*> chain;
  StmtP cur = singleChild(nest);
  for (int level = 1; level <= depth; ++level) {
    if (cur->kind != StmtKind::For) {
      int have = static_cast<int>(chain.size());
      if (level == 1)
        throw ScheduleError(what + ": level 1 does not exist: the nest starts with " +
                            (cur->kind == StmtKind::Seq ? "a sequence of statements, not one loop"
                                                        : "a statement, not a loop"));
      // Name the level asked for (interchange(l, 2, 7) asks for 7), not the first one missing.
      if (cur->kind == StmtKind::Seq)
        throw ScheduleError(what + ": level " + std::to_string(depth) + " is not reachable: the body of level " +
                            std::to_string(have) + " (loop '" + chain.back()->var + "') holds " +
                            std::to_string(cur->as<Seq>().stmts.size()) +
                            " statements, so the nest is perfect only down to level " + std::to_string(have));
      throw ScheduleError(what + ": level " + std::to_string(depth) + " does not exist: the loop nest has " +
                          std::to_string(have) + " level" + (have == 1 ? "" : "s"));
    }
    auto* f = static_cast<const For*>(cur.get());
    chain.push_back(f);
    cur = singleChild(loopBody(*f));
  }
  return chain;
}

StmtP replaceLevel(const std::vector<const For*>& chain, int level, StmtP replacement) {
  StmtP cur = std::move(replacement);
  for (int l = level - 1; l >= 1; --l) cur = withBody(*chain[l - 1], cur);
  return cur;
}

std::set<std::string> boundVars(const StmtP& s) {
  std::set<std::string> vars;
  forEachStmt(s, [&](const StmtP& t) {
    if (t->kind == StmtKind::For) vars.insert(t->as<For>().var);
  });
  return vars;
}

std::set<std::string> namesIn(const StmtP& s) {
  std::set<std::string> names = boundVars(s);
  forEachExprIn(s, [&](const ExprP& e) {
    if (e->kind == ExprKind::Var) names.insert(e->as<Var>().name);
  });
  return names;
}

std::string freshLoopId(const StmtP& nest, const std::string& base) {
  std::set<std::string> ids;
  forEachStmt(nest, [&](const StmtP& t) {
    if (t->kind == StmtKind::For) ids.insert(t->as<For>().id);
  });
  return freshName(base, ids);
}

}  // namespace teml::schedule
