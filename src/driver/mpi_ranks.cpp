#include "driver/mpi_ranks.hpp"

#include <cstdlib>
#include <string>

#include "diag/diagnostics.hpp"

namespace teml::driver {

int launchedRanks() {
  // Open MPI's mpirun, then MPICH's (Hydra) and PMI launchers such as srun.
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
    const char* value = std::getenv(name);
    if (!value) continue;
    char* end = nullptr;
    long n = std::strtol(value, &end, 10);
    if (end != value && *end == '\0' && n >= 1) return static_cast<int>(n);
  }
  return 1;
}

void refuseSeveralRanks() {
  int ranks = launchedRanks();
  if (ranks > 1)
    throw UnavailableError("this teml is built without MPI, and it was launched with " + std::to_string(ranks) +
                           " ranks: each would run the whole program; run it as one process (distribute changes "
                           "nothing then), or build teml where MPI is installed");
}

}  // namespace teml::driver
