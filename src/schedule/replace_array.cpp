#include "schedule/access_rewrite.hpp"
#include "schedule/nest_path.hpp"
#include "schedule/schedule_error.hpp"
#include "schedule/transforms.hpp"

namespace teml::schedule {

using namespace ir;

StmtP replaceArray(const StmtP& nest, int r, const std::string& old, const TensorDecl& replacement,
                   const std::vector<int>& sigma, bool readsOnly) {
  auto chain = loopsToLevel(nest, r, "replace_array");
  const For& f = *chain[r - 1];
  auto locals = localTensors(nest);
  for (const std::string& t : {old, replacement.name})
    if (locals.count(t))
      throw ScheduleError("replace_array: '" + t + "' is local to a loop of this nest; change its layout with var_reorder");
  if (readsOnly && tensorsWritten(nest).count(replacement.name))
      throw ScheduleError("replace_array: this nest computes the copy '" + replacement.name +
                          "' itself, so its reads could come before its writes; replace first, then fuse the copy "
                          "with its consumer (fusion checks that dependence)");
  AccessRewrite rewrite(old, replacement.name, [&sigma](const std::vector<ExprP>& idx) {
    std::vector<ExprP> out(idx.size());
    for (size_t k = 0; k < idx.size(); ++k) out[sigma[k]] = idx[k];
    return out;
  }, replacement.shape);
  StmtP body = rewrite.mutate(loopBody(f));
  if (rewrite.reads + rewrite.writes == 0)
    throw ScheduleError("replace_array: no statement inside loop '" + f.var + "' (level " + std::to_string(r) +
                        ") accesses '" + old + "'");
  if (readsOnly && rewrite.writes > 0)
    throw ScheduleError("replace_array: loop '" + f.var + "' writes '" + old + "'; the physical copy '" +
                        replacement.name + "' can only replace reads (it would no longer equal '" + old + "')");
  return replaceLevel(chain, r, makeFor(f.id, f.var, f.begin, f.end, f.step, f.loopKind, body, localsOf(f)));
}

}  // namespace teml::schedule
