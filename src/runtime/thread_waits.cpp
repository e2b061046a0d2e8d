#include "runtime/thread_waits.hpp"

#include <cstdlib>
#include <mutex>

namespace teml::runtime {

void preferShortSpinWaits() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (!std::getenv("OMP_WAIT_POLICY") && !std::getenv("GOMP_SPINCOUNT")) setenv("GOMP_SPINCOUNT", "3000", 0);
  });
}

}  // namespace teml::runtime
