#include "autodiff/dead_writes.hpp"

#include <algorithm>
#include <vector>

#include "analysis/written_before_read.hpp"
#include "ir/accesses.hpp"
#include "ir/mutator.hpp"

namespace teml::autodiff {

using namespace ir;

namespace {

std::vector<StmtP> topStatements(const StmtP& nest) {
  if (nest->kind == StmtKind::Seq) return nest->as<Seq>().stmts;
  return {nest};
}

// The program's tensors `s` writes; false where something else may be
// written (a call, an exchange, a tensor it does not define itself).
bool programWrites(const Program& p, const StmtP& s, std::set<std::string>* out) {
  std::set<std::string> inside;
  bool known = true;
  forEachStmt(s, [&](const StmtP& x) {
    if (x->kind == StmtKind::VarDef) inside.insert(x->as<VarDef>().decl.name);
    if (x->kind == StmtKind::Store) out->insert(x->as<Store>().tensor);
    if (x->kind == StmtKind::Reduce) out->insert(x->as<Reduce>().tensor);
    known = known && x->kind != StmtKind::LibCall && x->kind != StmtKind::Exchange;
  });
  for (auto& t : inside) out->erase(t);
  return known && std::all_of(out->begin(), out->end(), [&](const std::string& t) { return p.find(t) != nullptr; });
}

// Whether a statement of `before` reads or updates `t`: its backward pass
// would want t's values from before the dead statement, which only that
// statement's own backward pass restores.
bool readBefore(const std::vector<StmtP>& before, const std::set<std::string>& tensors) {
  for (auto& s : before)
    for (auto& a : accessesOf(s))
      if (a.kind != AccessKind::Store && tensors.count(a.tensor)) return true;
  return false;
}

}  // namespace

std::set<std::string> deadStatements(const Program& p) {
  std::set<std::string> dead;
  for (size_t k = 0; k < p.nests.size(); ++k) {
    std::vector<StmtP> items = topStatements(p.nests[k]);
    for (size_t j = 0; j < items.size(); ++j) {
      std::set<std::string> written;
      if (!programWrites(p, items[j], &written) || written.empty()) continue;
      std::vector<StmtP> before(p.nests.begin(), p.nests.begin() + static_cast<long>(k));
      before.insert(before.end(), items.begin(), items.begin() + static_cast<long>(j));
      if (readBefore(before, written)) continue;
      std::vector<StmtP> after(items.begin() + static_cast<long>(j) + 1, items.end());
      after.insert(after.end(), p.nests.begin() + static_cast<long>(k) + 1, p.nests.end());
      if (std::all_of(written.begin(), written.end(),
                      [&](const std::string& t) { return analysis::storedBeforeRead(*p.find(t), after); }))
        dead.insert(items[j]->id);
    }
  }
  return dead;
}

StmtP withoutStatements(const StmtP& nest, const std::set<std::string>& ids) {
  std::vector<StmtP> kept;
  for (auto& s : topStatements(nest))
    if (!ids.count(s->id)) kept.push_back(s);
  if (kept.empty()) return nullptr;
  if (nest->kind != StmtKind::Seq) return nest;
  if (kept.size() == nest->as<Seq>().stmts.size()) return nest;
  return std::make_shared<Seq>(kept, nest->id, nest->made);
}

}  // namespace teml::autodiff
