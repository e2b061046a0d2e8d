#include "driver/mpi_ranks.hpp"

#include "diag/diagnostics.hpp"
#include "runtime/mpi.hpp"

namespace teml::driver {

int launchedRanks(const Options& o, const std::string& command) {
  int ranks = runtime::mpi::launchedRanks();
  if (ranks <= 1) return 1;
  if (!runtime::mpi::built())
    throw UnavailableError("this teml is built without MPI, and it was launched with " + std::to_string(ranks) +
                           " ranks: each would run the whole program; run it as one process (distribute changes "
                           "nothing then), or build teml where MPI is installed");
  bool splits = (command == "run" || command == "bench") && !o.interpret && !o.emulate && o.target == "cpu" &&
                o.wrt.empty() && o.of.empty();
  return splits ? ranks : 1;
}

}  // namespace teml::driver
