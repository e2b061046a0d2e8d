// Seconds between two points of a compilation, for -v's stage times and
// the pass log.
#pragma once
#include <chrono>

namespace teml {

using Clock = std::chrono::steady_clock;

inline double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace teml
