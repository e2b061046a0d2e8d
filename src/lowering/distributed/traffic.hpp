// What a program lowered for several MPI ranks moves and keeps, per rank,
// as its exchanges and Program::distribution predict (teml check --ranks N
// -v, the communication model in bench/distributed/).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ir/program.hpp"

namespace teml::lowering {

struct RankTraffic {
  int64_t sent = 0, received = 0;  // bytes of every exchange (a reduction's box counts both ways)
  int64_t messages = 0;            // messages it sends or receives (a reduction: one), every run of each exchange
  int64_t kept = 0;                // bytes of program tensors it keeps
  int64_t inputs = 0;              // bytes of tensors no step writes that it keeps (read from their files)
};

std::vector<RankTraffic> predictedTraffic(const ir::Program& lowered);

// The model of exchanges on this machine: about 1 GB/s between ranks
// (shared-memory transport), and 5 us a message whatever its size.
constexpr double kExchangeBytesPerSecond = 1e9, kSecondsPerMessage = 5e-6;
// The seconds of exchanges of the rank that exchanges the longest.
double exchangeSeconds(const std::vector<RankTraffic>& ranks);

// Bytes per element of every tensor the program names (its own and those its nests define).
std::map<std::string, int64_t> elementBytes(const ir::Program& program);
// Every exchange of the program, with how many times it runs: the product
// of the trip counts of the loops around it (1 at the top level).
std::vector<std::pair<const ir::Exchange*, int64_t>> exchangeRuns(const ir::Program& program);
// Bytes exchange `x` sends and receives in `rank` (a reduction's box both
// ways; a reduction to owners: at most), each time it runs.
std::pair<int64_t, int64_t> exchangeBytes(const ir::Exchange& x, int64_t elementBytes, int rank);

}  // namespace teml::lowering
