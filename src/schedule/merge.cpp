#include "ir/mutator.hpp"
#include "schedule/nest_path.hpp"
#include "schedule/schedule_error.hpp"
#include "schedule/transforms.hpp"

namespace teml::schedule {

using namespace ir;

StmtP merge(const StmtP& nest, int r) {
  auto chain = loopsToLevel(nest, r + 1, "merge");
  const For& outer = *chain[r - 1];
  const For& inner = *chain[r];
  int64_t n1, n2;
  if (!constValue(sub(outer.end, outer.begin), &n1) || !constValue(sub(inner.end, inner.begin), &n2))
    throw ScheduleError("merge: loops '" + outer.var + "' and '" + inner.var + "' need constant trip counts");
  if (outer.step != 1 || inner.step != 1) throw ScheduleError("merge: both loops need unit steps");
  for (const For* f : {&outer, &inner})
    if (f->loopKind.gpu())
      throw ScheduleError("merge: loop '" + f->var + "' is bound to " + parallelScopeName(f->loopKind.scope) +
                          "; merge the loops first, then bind the merged loop");
  if (usesVar(inner.begin, outer.var) || usesVar(inner.end, outer.var))
    throw ScheduleError("merge: the bounds of loop '" + inner.var + "' depend on '" + outer.var + "'");
  if (n1 <= 0 || n2 <= 0) return nest;
  auto taken = namesIn(nest);
  std::string m = freshName(outer.var + "_" + inner.var, taken);
  // m runs over both: outer = begin1 + m / n2, inner = begin2 + m mod n2.
  StmtP body = substitute(loopBody(inner), {{outer.var, add(outer.begin, floorDiv(var(m), intConst(n2)))},
                                        {inner.var, add(inner.begin, binary(BinOp::Mod, var(m), intConst(n2)))}});
  LoopKind kind;
  kind.scope = LoopKind::join(outer.loopKind.scope, inner.loopKind.scope);
  kind.schedule = outer.loopKind.threads() ? outer.loopKind.schedule : inner.loopKind.schedule;
  std::vector<LocalTensor> locals = localsOf(outer);
  for (auto& l : localsOf(inner)) locals.push_back(l);
  StmtP merged = makeFor(outer.id, m, intConst(0), intConst(n1 * n2), 1, kind, body, locals);
  return replaceLevel(chain, r, merged);
}

}  // namespace teml::schedule
