// Where the cache lives, and what teml does when it cannot live there.
#pragma once
#include <string>

namespace teml::cache {

// $XDG_CACHE_HOME/teml, else ~/.cache/teml, else /tmp/teml-cache.
std::string defaultDirectory();

// Creates `path` and its parents; UsageError when it cannot.
void makeDirectories(const std::string& path);

// Creates `path` if needed and checks that files can be created in it.
// "" when it can hold entries, else why not (for a warning).
std::string prepareDirectory(const std::string& path);

// Where the dependence analysis keeps its answers beside the kernels of
// `kernelCacheDir` ("": the default cache); "" when no cache can be used.
std::string analysisDirectory(const std::string& kernelCacheDir);

// A private directory under $TMPDIR (or /tmp), removed with its contents
// when the object goes: for kernels compiled when the cache cannot be used.
class TemporaryDirectory {
 public:
  TemporaryDirectory();
  ~TemporaryDirectory();
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace teml::cache
