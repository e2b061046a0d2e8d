#include "ir/mutator.hpp"
#include "schedule/nest_path.hpp"
#include "schedule/schedule_error.hpp"
#include "schedule/transforms.hpp"

namespace teml::schedule {

using namespace ir;

StmtP makeLocal(const StmtP& nest, int r, const LocalTensor& tensor) {
  auto chain = loopsToLevel(nest, r, "local");
  const std::string& name = tensor.decl.name;
  forEachStmt(nest, [&](const StmtP& s) {
    if (s->kind != StmtKind::For) return;
    auto& f = static_cast<const For&>(*s);
    for (auto& l : f.locals)
      if (l.decl.name == name)
        throw ScheduleError("local: '" + name + "' is already local to loop '" + f.var + "'");
  });
  const For& f = *chain[r - 1];
  std::vector<LocalTensor> locals = f.locals;
  locals.push_back(tensor);
  StmtP owner = makeFor(f.id, f.var, f.begin, f.end, f.step, f.loopKind, f.body, locals);
  return replaceLevel(chain, r, owner);
}

std::set<std::string> localTensors(const StmtP& nest) {
  std::set<std::string> names;
  forEachStmt(nest, [&](const StmtP& s) {
    if (s->kind == StmtKind::For)
      for (auto& l : static_cast<const For&>(*s).locals) names.insert(l.decl.name);
  });
  return names;
}

}  // namespace teml::schedule
