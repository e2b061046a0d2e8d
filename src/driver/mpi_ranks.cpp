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
  // A gradient program is split by the automatic distribution (hand
  // schedules describe the forward program's loops): free-form entries, or
  // --auto.
  bool gradient = command == "grad" || !o.wrt.empty() || !o.of.empty();
  bool freeform = o.programPath.size() > 3 && o.programPath.compare(o.programPath.size() - 3, 3, ".py") == 0;
  bool automatic = freeform ? o.autoSchedule : o.autoRequested;
  bool splits = (command == "run" || command == "bench" || command == "grad") && !o.interpret && !o.emulate &&
                o.target == target::Kind::Cpu && (!gradient || automatic);
  return splits ? ranks : 1;
}

}  // namespace teml::driver
