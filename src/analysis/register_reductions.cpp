#include "analysis/register_reductions.hpp"

#include <map>
#include <set>
#include <string>

#include "ir/accesses.hpp"
#include "ir/mutator.hpp"

namespace teml::analysis {

using namespace ir;

std::vector<const Reduce*> registerReductions(const For& f) {
  std::set<std::string> moving = {f.var};
  forEachStmt(f.body, [&](const StmtP& s) {
    if (s->kind == StmtKind::For) moving.insert(s->as<For>().var);
  });
  std::vector<const Reduce*> reduces;
  std::map<std::string, int> otherUses;  // tensor -> accesses that are not such reductions
  for (auto& a : accessesOf(f.body)) {
    if (a.kind != AccessKind::Reduce) {
      ++otherUses[a.tensor];
      continue;
    }
    bool fixed = true;
    for (auto& i : a.indices)
      for (auto& v : moving) fixed = fixed && !usesVar(i, v);
    if (fixed) reduces.push_back(static_cast<const Reduce*>(a.stmt));
    else ++otherUses[a.tensor];
  }
  std::vector<const Reduce*> out;
  for (auto* r : reduces)
    if (otherUses[r->tensor] == 0) out.push_back(r);
  return out;
}

bool sumsStayInRegisters(const StmtP& body) {
  std::set<std::string> kept;  // ids
  forEachStmt(body, [&](const StmtP& s) {
    if (s->kind == StmtKind::For)
      for (auto* r : registerReductions(s->as<For>())) kept.insert(r->id);
  });
  bool all = true;
  forEachStmt(body, [&](const StmtP& s) {
    if (s->kind == StmtKind::Reduce) all = all && kept.count(s->id);
  });
  return all;
}

}  // namespace teml::analysis
