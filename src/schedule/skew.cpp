#include "ir/mutator.hpp"
#include "schedule/nest_path.hpp"
#include "schedule/schedule_error.hpp"
#include "schedule/transforms.hpp"

namespace teml::schedule {

using namespace ir;

StmtP skew(const StmtP& nest, int r1, int r2, int64_t factor) {
  if (r1 >= r2) throw ScheduleError("skew: the skewed level must be inside the other (r1 < r2)");
  auto chain = loopsToLevel(nest, r2, "skew");
  const For& outer = *chain[r1 - 1];
  const For& f = *chain[r2 - 1];
  if (f.step != 1) throw ScheduleError("skew: loop '" + f.var + "' has step " + std::to_string(f.step));
  // The iterator now runs over j + factor * i; its old value is j - factor * i.
  ExprP shift = mul(intConst(factor), var(outer.var));
  StmtP body = substitute(loopBody(f), {{f.var, sub(var(f.var), shift)}});
  StmtP skewed = makeFor(f.id, f.var, add(f.begin, shift), add(f.end, shift), 1, f.loopKind, body, localsOf(f));
  return replaceLevel(chain, r2, skewed);
}

}  // namespace teml::schedule
