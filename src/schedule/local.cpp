#include "ir/mutator.hpp"
#include "schedule/nest_path.hpp"
#include "schedule/schedule_error.hpp"
#include "schedule/transforms.hpp"

namespace teml::schedule {

using namespace ir;

StmtP makeLocal(const StmtP& nest, int r, const LocalTensor& tensor) {
  auto chain = loopsToLevel(nest, r, "local");
  const std::string& name = tensor.decl.name;
  for (auto& [loop, local] : localTensorsIn(nest))
    if (local.decl.name == name)
      throw ScheduleError("local: '" + name + "' is already local to loop '" + loop->var + "'");
  const For& f = *chain[r - 1];
  std::vector<LocalTensor> locals = localsOf(f);
  locals.push_back(tensor);
  StmtP owner = makeFor(f.id, f.var, f.begin, f.end, f.step, f.loopKind, loopBody(f), locals);
  return replaceLevel(chain, r, owner);
}

std::set<std::string> localTensors(const StmtP& nest) {
  std::set<std::string> names;
  for (auto& l : localTensorsIn(nest)) names.insert(l.tensor.decl.name);
  return names;
}

}  // namespace teml::schedule
