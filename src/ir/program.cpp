#include "ir/program.hpp"

#include "diag/diagnostics.hpp"
#include "ir/mutator.hpp"

namespace teml::ir {

const char* roleName(TensorRole r) {
  switch (r) {
    case TensorRole::Input: return "input";
    case TensorRole::Output: return "output";
    case TensorRole::InOut: return "inout";
    case TensorRole::Temporary: return "temporary";
    case TensorRole::Saved: return "saved";
    case TensorRole::Tape: return "tape";
    case TensorRole::Gradient: return "gradient";
    case TensorRole::Adjoint: return "adjoint";
    case TensorRole::Weights: return "weights";
  }
  return "temporary";
}

bool isCallers(TensorRole r) {
  return r == TensorRole::Input || r == TensorRole::Output || r == TensorRole::InOut || r == TensorRole::Gradient ||
         r == TensorRole::Weights;
}

TensorRole Program::roleOf(const std::string& name) const {
  auto r = roles.find(name);
  if (r == roles.end()) throw InternalError("tensor '" + name + "' has no role (ir::assignCallerRoles was not run)");
  return r->second;
}

void assignCallerRoles(Program& p) {
  std::set<std::string> written;
  for (auto& nest : p.nests)
    for (auto& t : tensorsWritten(nest)) written.insert(t);
  std::erase_if(p.roles, [&](const auto& role) { return !p.find(role.first); });
  for (auto& t : p.tensors)
    if (!p.roles.count(t.name)) p.roles[t.name] = written.count(t.name) ? TensorRole::Output : TensorRole::Input;
}

}  // namespace teml::ir
