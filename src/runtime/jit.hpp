// Just-in-time compilation of generated C: the source is written to a cache
// directory under a hash of (source, compiler, flags), compiled once into a
// shared object with the system C compiler, and loaded with dlopen.
#pragma once
#include <string>
#include <vector>

namespace teml::runtime {

struct JitOptions {
  std::string cc = "cc";
  std::string cflags = "-O3 -march=native -fopenmp";
  std::string cacheDir;  // empty: $XDG_CACHE_HOME/teml or ~/.cache/teml
};

using EntryFn = void (*)(void** buffers, int nthreads);

class Kernel {
 public:
  // `libraries`: linker flags the code needs (e.g. -lopenblas).
  Kernel(const std::string& source, const JitOptions& options, const std::vector<std::string>& libraries = {});
  ~Kernel();
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;

  void run(std::vector<void*>& buffers, int nthreads) const { entry_(buffers.data(), nthreads); }
  bool compiledNow() const { return compiledNow_; }  // false: taken from the cache
  const std::string& libraryPath() const { return libPath_; }

 private:
  void* handle_ = nullptr;
  EntryFn entry_ = nullptr;
  bool compiledNow_ = false;
  std::string libPath_;
};

std::string defaultCacheDir();
// Creates `path` and its parents; UsageError when it cannot.
void makeDirs(const std::string& path);
// A stable 64-bit FNV-1a hash, as 16 hex digits.
std::string contentHash(const std::string& text);

}  // namespace teml::runtime
