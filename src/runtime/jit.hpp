// Just-in-time compilation of generated C: the source is written to a cache
// directory under a hash of (source, compiler, flags), compiled once into a
// shared object with the system C compiler, and loaded with dlopen. Cache
// entries are checked before use (cache/entry.hpp); a damaged one is removed
// and rebuilt, and a directory that cannot hold entries makes the kernel
// compile in a temporary directory instead.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace teml::runtime {

struct JitOptions {
  std::string cc = "cc";
  // No floating-point traps or errno are observed, so GCC may compute both
  // arms of a select and vectorize loops with math calls.
  std::string cflags = "-O3 -march=native -fopenmp -fno-trapping-math -fno-math-errno";
  std::string cacheDir;  // empty: $XDG_CACHE_HOME/teml or ~/.cache/teml
  // The function the code must define. Kernel::run calls it as an EntryFn;
  // code with another entry (CUDA's host code) is called through symbol().
  std::string entry = "teml_entry";
};

using EntryFn = void (*)(void** buffers, int nthreads);
using ErrorFn = int (*)(int* line, int* col, const char** message, long* value);

class Kernel {
 public:
  // `libraries`: linker flags the code needs (e.g. -lopenblas).
  Kernel(const std::string& source, const JitOptions& options, const std::vector<std::string>& libraries = {});
  ~Kernel();
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;

  // Runs the kernel; a failed run-time check (ir::Assert) throws UserError at its location.
  void run(std::vector<void*>& buffers, int nthreads) const;
  // The same, with a failed check's message passed through `message` first
  // (a size-generic kernel's markers: runtime/size_generic_source.hpp).
  void run(std::vector<void*>& buffers, int nthreads,
           const std::function<std::string(const std::string&)>& message) const;
  bool compiledNow() const { return compiledNow_; }  // false: taken from the cache
  const std::string& libraryPath() const { return libPath_; }
  void* symbol(const std::string& name) const;  // of the loaded kernel; null when it has none
  // What happened to the cache on the way (a damaged entry rebuilt...), for -v.
  const std::vector<std::string>& notes() const { return notes_; }
  // Problems the user should hear about (the cache directory was unusable).
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  bool loadCached();
  std::string compileIntoCache(const std::string& dir);
  void compileInTemporaryDirectory();
  // Compiles into `base`.so; the compiler's messages when it fails.
  std::optional<std::string> compile(const std::string& base);
  // dlopen and look up the entry point; the reason when that fails.
  std::string load(const std::string& path);

  std::string source_;
  JitOptions options_;
  std::vector<std::string> libraries_;
  std::string key_;
  void* handle_ = nullptr;
  EntryFn entry_ = nullptr;
  ErrorFn error_ = nullptr;
  bool compiledNow_ = false;
  std::string libPath_;
  std::vector<std::string> notes_, warnings_;
};
// A stable 64-bit FNV-1a hash, as 16 hex digits.
std::string contentHash(const std::string& text);

}  // namespace teml::runtime
