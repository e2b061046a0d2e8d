// The CPU's own lowering passes: how loops in SIMD lanes are written for the
// target's vector width (vector_plans), how copy nests are written
// (copy_plans), and prefetches of rows that data choose (indirect_prefetches).
#pragma once
#include <vector>

#include "lowering/target_passes.hpp"

namespace teml::lowering {

std::vector<TargetPass> cpuPasses();

}  // namespace teml::lowering
