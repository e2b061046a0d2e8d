#include "lowering/distributed/row_checks_by_rank.hpp"

#include "ir/csr_rows.hpp"
#include "ir/mutator.hpp"

namespace teml::lowering {

using namespace ir;

namespace {

// `assert P[r] <= P[r + 1]` alone in a loop over r (wholeRowOrderCheck).
bool isWholeRowCheck(const For& f) {
  if (f.body->kind != StmtKind::Assert) return false;
  auto& a = f.body->as<Assert>();
  return rowOrderChecked(a) && a.body->kind == StmtKind::Seq && a.body->as<Seq>().stmts.empty();
}

// The steps of a nest (through sequences and the tensors it defines), each
// whole row check among them distributed.
StmtP distributeSteps(const StmtP& s) {
  if (s->kind == StmtKind::Seq) {
    std::vector<StmtP> out;
    for (auto& item : s->as<Seq>().stmts) out.push_back(distributeSteps(item));
    return makeSeq(out);
  }
  if (s->kind == StmtKind::VarDef && !s->as<VarDef>().loopLocal) {
    auto& v = s->as<VarDef>();
    return std::make_shared<VarDef>(v.decl, distributeSteps(v.body), v.loopLocal, v.id, v.made);
  }
  if (s->kind == StmtKind::For && !s->as<For>().loopKind.distributed && isWholeRowCheck(s->as<For>())) {
    auto& f = s->as<For>();
    LoopKind kind = f.loopKind;
    kind.distributed = true;
    return std::make_shared<For>(f.id, f.var, f.begin, f.end, f.step, kind, f.body, f.made);
  }
  return s;
}

}  // namespace

void distributeRowChecks(Program& p) {
  for (auto& nest : p.nests) {
    bool distributed = false;
    forEachStmt(nest, [&](const StmtP& s) { distributed |= s->kind == StmtKind::For && s->as<For>().loopKind.distributed; });
    if (distributed) nest = distributeSteps(nest);
  }
}

}  // namespace teml::lowering
