#include "runtime/jit.hpp"

#include "runtime/process.hpp"
#include "runtime/thread_waits.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "cache/directory.hpp"
#include "cache/entry.hpp"
#include "diag/diagnostics.hpp"
#include "ir/stmt.hpp"

extern char** environ;

namespace teml::runtime {

std::string contentHash(const std::string& text) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

namespace {

std::vector<std::string> splitWords(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream is(s);
  std::string w;
  while (is >> w) out.push_back(w);
  return out;
}

// An exclusive lock on `path` for the object's lifetime, so that processes
// building the same kernel compile it once; without it (the lock file cannot
// be made) they each compile, which is slower but still correct.
class FileLock {
 public:
  explicit FileLock(const std::string& path) : fd_(open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
    if (fd_ >= 0) flock(fd_, LOCK_EX);
  }
  ~FileLock() {
    if (fd_ >= 0) close(fd_);
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_;
};

// Signed integers wrap on overflow, as in the interpreter and NumPy: without
// it GCC may fold `y * 2 >= 0` into `y >= 0` (fuzz seed 6829). A meaning,
// not an optimization, so `--cflags` cannot drop it.
constexpr const char* kWrappingIntegers = "-fwrapv";

}  // namespace

Kernel::Kernel(const std::string& source, const JitOptions& options, const std::vector<std::string>& libraries)
    : source_(source), options_(options), libraries_(libraries) {
  // Flags added to every compilation, from any front end (the fuzz oracle's -ffp-contract=off).
  if (const char* extra = std::getenv("TEML_EXTRA_CFLAGS")) options_.cflags += std::string(" ") + extra;
  std::string dir = options.cacheDir.empty() ? cache::defaultDirectory() : options.cacheDir;
  std::string libs;
  for (auto& l : libraries) libs += l + " ";
  key_ = contentHash(source + '\0' + options_.cc + '\0' + options_.cflags + '\0' + kWrappingIntegers + '\0' + libs);
  libPath_ = dir + "/k" + key_ + ".so";
  if (loadCached()) return;
  std::string problem = cache::prepareDirectory(dir);
  if (problem.empty()) problem = compileIntoCache(dir);
  if (problem.empty()) return;
  compileInTemporaryDirectory();
  warnings_.push_back("cannot use the kernel cache directory '" + dir + "' (" + problem +
                      "); the kernel was compiled in a temporary directory and is not kept");
}

Kernel::~Kernel() = default;

bool Kernel::loadCached() {
  cache::EntryCheck entry = cache::readEntry(libPath_);
  if (entry.state == cache::EntryState::Missing) return false;
  std::string why = entry.state == cache::EntryState::Damaged ? entry.why : load(libPath_);
  if (why.empty()) return true;
  bool removed = cache::removeEntry(libPath_);
  notes_.push_back("cache entry " + libPath_ + " " + why + (removed ? ": removed and rebuilt" : ": bypassed"));
  return false;
}

std::string Kernel::compileIntoCache(const std::string& dir) {
  FileLock lock(dir + "/k" + key_ + ".lock");
  if (loadCached()) return "";  // another process built it while this one waited
  std::string base = cache::temporaryName(dir + "/k" + key_);
  std::optional<std::string> failure = compile(base);
  std::string why = failure ? "the C compiler failed in it" : cache::seal(base + ".so");
  if (why.empty()) why = load(base + ".so");
  if (why.empty()) {
    compiledNow_ = true;
    // Loaded from its temporary name before publishing, so that this process
    // never confuses it with an object it loaded earlier under the final name.
    std::string kept = cache::publish(base + ".so", libPath_);
    if (!kept.empty()) notes_.push_back("the kernel is not kept: " + kept);
    std::rename((base + ".c").c_str(), (dir + "/k" + key_ + ".c").c_str());
  }
  for (const char* ext : {".so", ".c", ".log"}) std::remove((base + ext).c_str());
  return why;
}

void Kernel::compileInTemporaryDirectory() {
  cache::TemporaryDirectory temp;
  std::string base = temp.path() + "/k" + key_;
  if (std::optional<std::string> log = compile(base))
    throw InternalError("the C compiler rejected generated code (teml emit prints it):\n" + *log);
  libPath_ = base + ".so";
  if (std::string why = load(libPath_); !why.empty()) throw InternalError("cannot load compiled kernel: " + why);
  compiledNow_ = true;
}

std::optional<std::string> Kernel::compile(const std::string& base) {
  {
    std::ofstream out(base + ".c");
    out << source_;
    if (!out.flush()) return "cannot write " + base + ".c";
  }
  std::vector<std::string> argv = {options_.cc};
  for (auto& w : splitWords(options_.cflags)) argv.push_back(w);
  for (const char* w : {kWrappingIntegers, "-shared", "-fPIC", "-o"}) argv.push_back(w);
  argv.push_back(base + ".so");
  argv.push_back(base + ".c");
  for (auto& l : libraries_) argv.push_back(l);
  int rc = runCompiler(argv, base + ".log");
  if (rc == -1) throw UsageError("cannot run the C compiler '" + options_.cc + "'");
  if (rc == 0) return std::nullopt;
  return readFile(base + ".log");
}

std::string Kernel::load(const std::string& path) {
  preferShortSpinWaits();  // before the first kernel brings libgomp in
  // Never unloaded: OpenMP worker threads may outlive a Kernel object.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (!handle) return std::string("cannot be loaded (") + dlerror() + ")";
  auto entry = reinterpret_cast<EntryFn>(dlsym(handle, options_.entry.c_str()));
  if (!entry) return "has no " + options_.entry;
  handle_ = handle;
  entry_ = entry;
  error_ = reinterpret_cast<ErrorFn>(dlsym(handle, "teml_error"));
  return "";
}

void Kernel::run(std::vector<void*>& buffers, int nthreads) const { run(buffers, nthreads, nullptr); }

void Kernel::run(std::vector<void*>& buffers, int nthreads,
                 const std::function<std::string(const std::string&)>& message) const {
  entry_(buffers.data(), nthreads);
  int line = 0, col = 0;
  const char* text = nullptr;
  long value = 0;
  if (!error_ || !error_(&line, &col, &text, &value)) return;
  std::string said = text ? text : "a run-time check failed";
  throw UserError(SourceLoc{line, col}, ir::assertionMessage(message ? message(said) : said, value));
}

void* Kernel::symbol(const std::string& name) const { return handle_ ? dlsym(handle_, name.c_str()) : nullptr; }

}  // namespace teml::runtime
