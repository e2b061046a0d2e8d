// How many MPI ranks a `teml run`, `bench` or `grad` splits its program over
// (docs/distributed.md).
#pragma once
#include <string>

#include "driver/driver.hpp"

namespace teml::driver {

// The ranks mpirun (or srun) launched, where the command runs compiled CPU
// code of a program (run, bench); 1 where every rank runs the whole program
// (grad, --interp, a GPU target) or there is no launcher. Throws
// UnavailableError for several ranks when teml is built without MPI.
int launchedRanks(const Options& options, const std::string& command);

}  // namespace teml::driver
