#include "runtime/jit.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "diag/diagnostics.hpp"

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

std::string defaultCacheDir() {
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/teml";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/teml";
  return "/tmp/teml-cache";
}

void makeDirs(const std::string& path) {
  std::string partial;
  std::stringstream ss(path);
  std::string part;
  if (!path.empty() && path[0] == '/') partial = "/";
  while (std::getline(ss, part, '/')) {
    if (part.empty()) continue;
    partial += part + "/";
    mkdir(partial.c_str(), 0755);
  }
  struct stat st;
  if (stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw UsageError("cannot create the kernel cache directory '" + path + "'");
}

static std::vector<std::string> splitWords(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream is(s);
  std::string w;
  while (is >> w) out.push_back(w);
  return out;
}

static std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs the compiler without a shell; its messages go to `logPath`.
static int runCompiler(const std::vector<std::string>& argv, const std::string& logPath) {
  std::vector<char*> args;
  for (auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, logPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid;
  int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

Kernel::Kernel(const std::string& source, const JitOptions& options, const std::vector<std::string>& libraries) {
  std::string dir = options.cacheDir.empty() ? defaultCacheDir() : options.cacheDir;
  makeDirs(dir);
  std::string libs;
  for (auto& l : libraries) libs += l + " ";
  std::string key = contentHash(source + '\0' + options.cc + '\0' + options.cflags + '\0' + libs);
  std::string base = dir + "/k" + key;
  libPath_ = base + ".so";
  struct stat st;
  if (stat(libPath_.c_str(), &st) != 0) {
    std::string unique = base + "." + std::to_string(getpid());
    {
      std::ofstream out(unique + ".c");
      out << source;
      if (!out) throw UsageError("cannot write to the kernel cache directory '" + dir + "'");
    }
    std::vector<std::string> argv = {options.cc};
    for (auto& w : splitWords(options.cflags)) argv.push_back(w);
    for (const char* w : {"-shared", "-fPIC", "-o"}) argv.push_back(w);
    argv.push_back(unique + ".so");
    argv.push_back(unique + ".c");
    for (auto& l : libraries) argv.push_back(l);
    int rc = runCompiler(argv, unique + ".log");
    if (rc == -1) throw UsageError("cannot run the C compiler '" + options.cc + "'");
    if (rc != 0) {
      std::string log = readFile(unique + ".log");
      throw InternalError("the C compiler rejected generated code (" + unique + ".c):\n" + log);
    }
    // Publish atomically so that concurrent runs never load a half-written library.
    std::rename((unique + ".so").c_str(), libPath_.c_str());
    std::rename((unique + ".c").c_str(), (base + ".c").c_str());
    std::remove((unique + ".log").c_str());
    compiledNow_ = true;
  }
  // Never unloaded: OpenMP worker threads may outlive a Kernel object.
  handle_ = dlopen(libPath_.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (!handle_) throw InternalError(std::string("cannot load compiled kernel: ") + dlerror());
  entry_ = reinterpret_cast<EntryFn>(dlsym(handle_, "teml_entry"));
  if (!entry_) throw InternalError("compiled kernel has no teml_entry");
}

Kernel::~Kernel() = default;

}  // namespace teml::runtime
