#include "schedule/loop_target.hpp"

#include "ir/mutator.hpp"
#include "ir/visitor.hpp"
#include "schedule/nest_path.hpp"
#include "schedule/schedule_error.hpp"

namespace teml::schedule {

using namespace ir;

std::vector<std::string> loopIds(const StmtP& s) {
  std::vector<std::string> ids;
  forEachStmt(s, [&](const StmtP& t) {
    if (t->kind == StmtKind::For) ids.push_back(t->as<For>().id);
  });
  return ids;
}

StmtP findLoop(const StmtP& top, const std::string& id, const std::string& what) {
  StmtP found;
  forEachStmt(top, [&](const StmtP& t) {
    if (!found && t->kind == StmtKind::For && t->as<For>().id == id) found = t;
  });
  if (found) return found;
  // The first loops by name: an unrolled nest can have hundreds.
  constexpr size_t kLoopsNamed = 12;
  std::vector<std::string> ids = loopIds(top);
  std::string known;
  for (size_t k = 0; k < ids.size() && k < kLoopsNamed; ++k) known += (known.empty() ? "" : ", ") + ids[k];
  if (ids.size() > kLoopsNamed) known += " and " + std::to_string(ids.size() - kLoopsNamed) + " more";
  throw ScheduleError(what + ": there is no loop '" + id + "'" +
                      (known.empty() ? " (the program has no loops)" : " (loops: " + known + ")"));
}

namespace {

// Rebuilds the path down to one statement; everything else is shared.
class Replace : public Mutator {
 public:
  Replace(const Stmt* target, StmtP replacement) : target_(target), replacement_(std::move(replacement)) {}
  StmtP mutate(const StmtP& s) override { return s.get() == target_ ? replacement_ : Mutator::mutate(s); }
  using Mutator::mutate;

 private:
  const Stmt* target_;
  StmtP replacement_;
};

class ReplacePair : public Mutator {
 public:
  ReplacePair(const Stmt* first, const Stmt* second, StmtP replacement)
      : first_(first), second_(second), replacement_(std::move(replacement)) {}
  bool done = false;

 protected:
  StmtP mutateSeq(const StmtP& s) override {
    auto& q = s->as<Seq>();
    for (size_t k = 0; k + 1 < q.stmts.size(); ++k)
      if (q.stmts[k].get() == first_ && q.stmts[k + 1].get() == second_) {
        std::vector<StmtP> items(q.stmts.begin(), q.stmts.begin() + static_cast<long>(k));
        items.push_back(replacement_);
        items.insert(items.end(), q.stmts.begin() + static_cast<long>(k) + 2, q.stmts.end());
        done = true;
        return makeSeq(items);
      }
    return Mutator::mutateSeq(s);
  }

 private:
  const Stmt *first_, *second_;
  StmtP replacement_;
};

}  // namespace

StmtP replaceStmt(const StmtP& top, const StmtP& target, const StmtP& replacement) {
  return Replace(target.get(), replacement).mutate(top);
}

StmtP replacePair(const StmtP& top, const StmtP& first, const StmtP& second, const StmtP& replacement,
                  const std::string& what) {
  ReplacePair r(first.get(), second.get(), replacement);
  StmtP out = r.mutate(top);
  if (!r.done) throw ScheduleError(what + ": the two loops are not neighbours in one sequence of statements");
  return out;
}

namespace {

// The statements from top down to target (both included), or empty.
bool pathTo(const StmtP& s, const Stmt* target, std::vector<StmtP>& path) {
  path.push_back(s);
  if (s.get() == target) return true;
  bool found = false;
  struct Children : Visitor {
    std::vector<StmtP> kids;
    void visit(const StmtP& k) override { kids.push_back(k); }
    void visit(const ExprP&) override {}
  } c;
  c.Visitor::visit(s);  // the base dispatch visits s's children through visit(StmtP)
  for (auto& k : c.kids)
    if (!found && pathTo(k, target, path)) found = true;
  if (!found) path.pop_back();
  return found;
}

}  // namespace

LoopSite siteOf(const StmtP& top, const std::string& id, const std::string& what) {
  StmtP loop = findLoop(top, id, what);
  std::vector<StmtP> path;
  pathTo(top, loop.get(), path);
  // Climb while the parent is a loop whose single statement leads here (its
  // local tensors, VarDefs with a LoopLocal, belong to its header).
  size_t k = path.size() - 1;
  int level = 1;
  for (size_t p = k; p-- > 0;) {
    if (path[p]->kind == StmtKind::Seq && path[p]->as<Seq>().stmts.size() == 1) continue;
    if (path[p]->kind == StmtKind::VarDef && path[p]->as<VarDef>().loopLocal) continue;
    if (path[p]->kind != StmtKind::For) break;
    k = p;
    ++level;
  }
  return {path[k], level};
}

std::vector<const For*> loopsAround(const StmtP& top, const StmtP& s) {
  std::vector<StmtP> path;
  pathTo(top, s.get(), path);
  std::vector<const For*> loops;
  for (size_t p = 0; p + 1 < path.size(); ++p)
    if (path[p]->kind == StmtKind::For) loops.push_back(&path[p]->as<For>());
  return loops;
}

std::pair<LoopSite, LoopSite> sitesOf(const StmtP& top, const std::string& a, const std::string& b,
                                      const std::string& what) {
  LoopSite sa = siteOf(top, a, what), sb = siteOf(top, b, what);
  if (sa.nest != sb.nest)
    throw ScheduleError(what + ": loops '" + a + "' and '" + b + "' are not in one perfect loop nest");
  return sa.level <= sb.level ? std::make_pair(sa, sb) : std::make_pair(sb, sa);
}

}  // namespace teml::schedule
