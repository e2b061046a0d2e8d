#include "runtime/mpi.hpp"

#include <chrono>
#include <cstdlib>
#include <thread>
#include <fstream>

#include "diag/diagnostics.hpp"

#ifdef TEML_WITH_MPI
#define OMPI_SKIP_MPICXX 1  // MPI's C interface only
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#endif

namespace teml::runtime::mpi {

namespace {

int fromEnvironment(std::initializer_list<const char*> names, int otherwise) {
  for (const char* name : names) {
    const char* value = std::getenv(name);
    if (!value) continue;
    char* end = nullptr;
    long n = std::strtol(value, &end, 10);
    if (end != value && *end == '\0' && n >= 0) return static_cast<int>(n);
  }
  return otherwise;
}

[[maybe_unused]] [[noreturn]] void notBuilt() {
  throw UnavailableError("this teml is built without MPI; install libopenmpi-dev openmpi-bin and build it again");
}

#ifdef TEML_WITH_MPI
void check(int rc, const std::string& what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw UsageError(what + ": " + std::string(text, len));
}
#endif

}  // namespace

// Open MPI's mpirun, then MPICH's (Hydra) and PMI launchers such as srun.
int launchedRanks() { return std::max(1, fromEnvironment({"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}, 1)); }
int launchedRank() { return fromEnvironment({"OMPI_COMM_WORLD_RANK", "PMI_RANK"}, 0); }

#ifdef TEML_WITH_MPI

bool built() { return true; }

bool started() {
  int on = 0;
  MPI_Initialized(&on);
  return on;
}

void start() {
  if (started()) return;
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  std::atexit([] {
    int done = 0;
    MPI_Finalized(&done);
    if (!done) MPI_Finalize();
  });
}

int rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int size() {
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

void barrier() { MPI_Barrier(MPI_COMM_WORLD); }

double maxOver(double value) {
  double out = value;
  MPI_Allreduce(&value, &out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return out;
}

void shareFromZero(void* data, int bytes) {
  MPI_Request request;
  MPI_Ibcast(data, bytes, MPI_BYTE, 0, MPI_COMM_WORLD, &request);
  for (int done = 0;;) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

void abortAll(int status) { MPI_Abort(MPI_COMM_WORLD, status); std::exit(status); }

void readAt(const std::string& path, int64_t offset, void* into, int64_t bytes) {
  MPI_File f;
  check(MPI_File_open(MPI_COMM_SELF, path.c_str(), MPI_MODE_RDONLY, MPI_INFO_NULL, &f), path);
  for (int64_t done = 0; done < bytes;) {
    int chunk = static_cast<int>(std::min<int64_t>(bytes - done, 1 << 30));
    MPI_Status status;
    check(MPI_File_read_at(f, offset + done, static_cast<char*>(into) + done, chunk, MPI_BYTE, &status), path);
    int got = 0;
    MPI_Get_count(&status, MPI_BYTE, &got);
    if (got != chunk) {
      MPI_File_close(&f);
      throw UsageError(path + ": truncated .npy data");
    }
    done += chunk;
  }
  MPI_File_close(&f);
}

void writeRuns(const std::string& path, const std::string& head, int64_t size, const std::vector<Run>& runs) {
  int ok = 1;
  if (rank() == 0) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << head;
    ok = static_cast<bool>(out);
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (!ok) throw UsageError(path + ": cannot write file");
  MPI_File f;
  check(MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_WRONLY, MPI_INFO_NULL, &f), path);
  check(MPI_File_set_size(f, size), path);
  for (auto& r : runs)
    for (int64_t done = 0; done < r.bytes;) {
      int chunk = static_cast<int>(std::min<int64_t>(r.bytes - done, 1 << 30));
      check(MPI_File_write_at(f, r.offset + done, static_cast<const char*>(r.data) + done, chunk, MPI_BYTE,
                              MPI_STATUS_IGNORE),
            path);
      done += chunk;
    }
  check(MPI_File_close(&f), path);
}

std::vector<std::vector<char>> gatherAtZero(const std::vector<char>& mine) {
  std::vector<std::vector<char>> all;
  int me = rank(), n = size();
  if (me != 0) {
    long bytes = static_cast<long>(mine.size());
    MPI_Send(&bytes, 1, MPI_LONG, 0, 1, MPI_COMM_WORLD);
    for (long done = 0; done < bytes;) {
      int chunk = static_cast<int>(std::min<long>(bytes - done, 1 << 30));
      MPI_Send(mine.data() + done, chunk, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
      done += chunk;
    }
    return all;
  }
  all.push_back(mine);
  for (int r = 1; r < n; ++r) {
    long bytes = 0;
    MPI_Recv(&bytes, 1, MPI_LONG, r, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    std::vector<char> part(bytes);
    for (long done = 0; done < bytes;) {
      int chunk = static_cast<int>(std::min<long>(bytes - done, 1 << 30));
      MPI_Recv(part.data() + done, chunk, MPI_BYTE, r, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      done += chunk;
    }
    all.push_back(std::move(part));
  }
  return all;
}

#else

bool built() { return false; }
bool started() { return false; }
void start() { notBuilt(); }
int rank() { return 0; }
int size() { return 1; }
void barrier() {}
double maxOver(double value) { return value; }
void shareFromZero(void*, int) {}
void abortAll(int status) { std::exit(status); }
void readAt(const std::string&, int64_t, void*, int64_t) { notBuilt(); }
void writeRuns(const std::string&, const std::string&, int64_t, const std::vector<Run>&) { notBuilt(); }
std::vector<std::vector<char>> gatherAtZero(const std::vector<char>& mine) { return {mine}; }

#endif

}  // namespace teml::runtime::mpi
