// The MPI ranks a command was launched with (by mpirun, or srun with PMI).
#pragma once

namespace teml::driver {

// The world size the launcher announced in the environment; 1 without one.
int launchedRanks();

// teml is built without MPI: launched with more than one rank, it would run
// the whole program once per rank; throws UnavailableError (exit 4) saying so.
void refuseSeveralRanks();

}  // namespace teml::driver
