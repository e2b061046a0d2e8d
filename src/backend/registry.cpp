// The back end of each target kind. A new target is a folder of its own
// under src/backend/ and one line in `backends()`.
#include <functional>
#include <map>

#include "backend/backend.hpp"
#include "backend/cpu/cpu_backend.hpp"
#include "backend/cuda/cuda_backend.hpp"
#include "diag/diagnostics.hpp"
#include "cache/directory.hpp"
#include "lowering/lower.hpp"

namespace teml::backend {

namespace {

using Factory = std::function<std::unique_ptr<Backend>(const target::Target&)>;

const std::map<target::Kind, Factory>& backends() {
  static const std::map<target::Kind, Factory> table = {
      {target::Kind::Cpu, makeCpuBackend},
      {target::Kind::Cuda, makeCudaBackend},
  };
  return table;
}

}  // namespace

std::unique_ptr<Backend> backendFor(const target::Target& target) {
  auto it = backends().find(target.kind);
  if (it == backends().end())
    throw InternalError("no back end is registered for target kind " + std::to_string(static_cast<int>(target.kind)));
  return it->second(target);
}

std::string emitFor(const ir::Program& scheduled, const target::Target& target) {
  return backendFor(target)->emit(lowering::lower(scheduled, target));
}

std::unique_ptr<Kernel> buildFor(const ir::Program& scheduled, const target::Target& target,
                                 const runtime::JitOptions& jit) {
  return backendFor(target)->build(lowering::lower(scheduled, target, cache::analysisDirectory(jit.cacheDir)), jit);
}

}  // namespace teml::backend
