#include "lowering/cpu/cpu_passes.hpp"

#include "lowering/cpu/copy_plans.hpp"
#include "lowering/cpu/indirect_prefetches.hpp"
#include "lowering/cpu/vector_plans.hpp"
#include "lowering/memory_kinds.hpp"

namespace teml::lowering {

std::vector<TargetPass> cpuPasses() {
  return {
      {"memory_kinds", [](const ir::StmtP& n, const ir::Program&, const target::Target&) { return chooseMemoryKinds(n); }},
      {"vector_plans", planVectorLoops},
      {"copy_plans", planCopies},
      {"indirect_prefetches", [](const ir::StmtP& n, const ir::Program& p, const target::Target&) {
         return addIndirectPrefetches(n, p);
       }},
  };
}

}  // namespace teml::lowering
