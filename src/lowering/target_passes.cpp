#include "lowering/target_passes.hpp"

#include <map>

#include "diag/diagnostics.hpp"
#include "lowering/cpu/cpu_passes.hpp"
#include "lowering/cuda/cuda_passes.hpp"

namespace teml::lowering {

const std::vector<TargetPass>& targetPasses(target::Kind kind) {
  static const std::map<target::Kind, std::vector<TargetPass>> table = {
      {target::Kind::Cpu, cpuPasses()},
      {target::Kind::Cuda, cudaPasses()},
  };
  auto it = table.find(kind);
  if (it == table.end())
    throw InternalError("no lowering passes are registered for target kind " + std::to_string(static_cast<int>(kind)));
  return it->second;
}

}  // namespace teml::lowering
