// The host's side of distributed runs (docs/distributed.md): MPI started
// only when teml was launched with several ranks (starting it costs a
// second otherwise), and the few collective steps the driver needs: reading
// and writing parts of .npy files with MPI-IO, moving whole buffers, and
// combining figures for -v and bench. Without MPI (teml built where it is
// absent) only launchedRanks/launchedRank work; the rest throws
// UnavailableError.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace teml::runtime::mpi {

bool built();          // teml was built with MPI
int launchedRanks();   // from the launcher's environment (mpirun, srun); 1 without one
int launchedRank();    // this process's rank among them; 0 without one
void start();          // MPI_Init once (MPI_Finalize at exit); idempotent
bool started();
int rank();
int size();
void barrier();
double maxOver(double value);  // over every rank, in every rank
// Rank 0's `bytes` bytes at `data` into every rank's; collective. The other
// ranks wait without spinning (a rank that waits here leaves its core to
// rank 0, which may be measuring: driver/measured_tuner.cpp).
void shareFromZero(void* data, int bytes);
[[noreturn]] void abortAll(int status);

// `bytes` bytes of `path` from `offset` into `into`; this rank alone.
void readAt(const std::string& path, int64_t offset, void* into, int64_t bytes);
// Runs of bytes {offset, data, bytes} written into `path`, which rank 0 has
// created `size` bytes long with `head` at its start; collective.
struct Run {
  int64_t offset;
  const void* data;
  int64_t bytes;
};
void writeRuns(const std::string& path, const std::string& head, int64_t size, const std::vector<Run>& runs);
// Rank 0 receives each rank's bytes, in rank order (its own first); collective.
std::vector<std::vector<char>> gatherAtZero(const std::vector<char>& mine);

}  // namespace teml::runtime::mpi
