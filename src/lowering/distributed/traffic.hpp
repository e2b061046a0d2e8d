// What a program lowered for several MPI ranks moves and keeps, per rank,
// as its exchanges and Program::distribution predict (teml check --ranks N
// -v, the communication model in bench/distributed/).
#pragma once
#include <cstdint>
#include <vector>

#include "ir/program.hpp"

namespace teml::lowering {

struct RankTraffic {
  int64_t sent = 0, received = 0;  // bytes of every exchange (a reduction's box counts both ways)
  int64_t kept = 0;                // bytes of program tensors it keeps
  int64_t inputs = 0;              // bytes of tensors no step writes that it keeps (read from their files)
};

std::vector<RankTraffic> predictedTraffic(const ir::Program& lowered);

}  // namespace teml::lowering
