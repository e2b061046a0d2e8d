#include "cache/directory.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <vector>

#include "cache/entry.hpp"
#include "diag/diagnostics.hpp"

namespace teml::cache {

std::string defaultDirectory() {
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/teml";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/teml";
  return "/tmp/teml-cache";
}

namespace {

// mkdir -p; errno of the first failure that matters.
int createDirectories(const std::string& path) {
  std::string partial = !path.empty() && path[0] == '/' ? "/" : "";
  std::stringstream ss(path);
  std::string part;
  int error = 0;
  while (std::getline(ss, part, '/')) {
    if (part.empty()) continue;
    partial += part + "/";
    error = mkdir(partial.c_str(), 0755) == 0 || errno == EEXIST ? 0 : errno;
  }
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return error ? error : errno;
  return S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
}

}  // namespace

void makeDirectories(const std::string& path) {
  if (createDirectories(path) != 0) throw UsageError("cannot create the directory '" + path + "'");
}

std::string prepareDirectory(const std::string& path) {
  if (int e = createDirectories(path)) return std::string("cannot create it: ") + std::strerror(e);
  std::string probe = temporaryName(path + "/.writable");
  int fd = open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return std::string("cannot write to it: ") + std::strerror(errno);
  close(fd);
  unlink(probe.c_str());
  return "";
}

TemporaryDirectory::TemporaryDirectory() {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/teml-XXXXXX";
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data())) {
    std::string fallback = "/tmp/teml-XXXXXX";
    buf.assign(fallback.begin(), fallback.end());
    buf.push_back('\0');
    if (!mkdtemp(buf.data()))
      throw UsageError(std::string("cannot create a temporary directory to compile in: ") + std::strerror(errno));
  }
  path_ = buf.data();
}

TemporaryDirectory::~TemporaryDirectory() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string analysisDirectory(const std::string& kernelCacheDir) {
  std::string cache = kernelCacheDir.empty() ? defaultDirectory() : kernelCacheDir;
  // Without a usable cache directory the analysis is simply not kept; the
  // kernel's compilation says so (runtime::Kernel).
  return prepareDirectory(cache).empty() ? cache + "/analysis" : "";
}

}  // namespace teml::cache
