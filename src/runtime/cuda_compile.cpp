#include "runtime/cuda_compile.hpp"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <vector>

#include "cache/directory.hpp"
#include "cache/entry.hpp"
#include "diag/diagnostics.hpp"
#include "runtime/dynamic_library.hpp"
#include "runtime/jit.hpp"
#include "runtime/process.hpp"

namespace teml::runtime {

namespace {

bool executable(const std::string& path) { return !path.empty() && access(path.c_str(), X_OK) == 0; }

// nvcc's version line ("Cuda compilation tools, release 13.0, V13.0.48").
std::string nvccVersion(const std::string& nvcc) {
  static std::string version;
  if (!version.empty()) return version;
  std::string log = cache::temporaryName("/tmp/teml-nvcc-version");
  if (runCompiler({nvcc, "--version"}, log) == 0) {
    std::string text = readFile(log);
    auto at = text.rfind("release");
    version = "nvcc " + (at == std::string::npos ? text : text.substr(at, text.find('\n', at) - at));
  } else {
    version = "nvcc";
  }
  std::remove(log.c_str());
  return version;
}

std::string withNvcc(const std::string& nvcc, const std::string& source, const std::string& arch) {
  cache::TemporaryDirectory dir;
  std::string cu = dir.path() + "/kernels.cu", cubin = dir.path() + "/kernels.cubin", log = dir.path() + "/nvcc.log";
  std::ofstream(cu) << source;
  int rc = runCompiler({nvcc, "-cubin", "-arch=" + arch, "-O3", "-o", cubin, cu}, log);
  if (rc == -1) throw UnavailableError("--target cuda: cannot run nvcc at " + nvcc);
  if (rc != 0) throw InternalError("nvcc rejected generated CUDA C (teml emit --target cuda prints it):\n" + readFile(log));
  return readFile(cubin);
}

// NVRTC's C interface, the few calls teml makes.
#define TEML_NVRTC_API(X)                                                                                     \
  X(int, create, "nvrtcCreateProgram", (void**, const char*, const char*, int, const char* const*, const char* const*)) \
  X(int, compile, "nvrtcCompileProgram", (void*, int, const char* const*))                                    \
  X(int, cubinSize, "nvrtcGetCUBINSize", (void*, size_t*))                                                    \
  X(int, cubin, "nvrtcGetCUBIN", (void*, char*))                                                              \
  X(int, logSize, "nvrtcGetProgramLogSize", (void*, size_t*))                                                 \
  X(int, log, "nvrtcGetProgramLog", (void*, char*))                                                           \
  X(int, destroy, "nvrtcDestroyProgram", (void**))                                                            \
  X(int, version, "nvrtcVersion", (int*, int*))

struct Nvrtc {
  TEML_NVRTC_API(TEML_ENTRY_FIELD)
  // The library when it loads with every entry point; else null.
  static Nvrtc* get() {
    static Nvrtc* n = [] {
      static const DynamicLibrary library({"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"});
      static Nvrtc api;
      return library.loaded() && !bindEntries(library, api) ? &api : nullptr;
    }();
    return n;
  }
  std::string name() const {
    int major = 0, minor = 0;
    version(&major, &minor);
    return "NVRTC " + std::to_string(major) + "." + std::to_string(minor);
  }

 private:
  static const char* bindEntries(const DynamicLibrary& library, Nvrtc& api) {
    TEML_NVRTC_API(TEML_ENTRY_BIND)
    return nullptr;
  }
};

std::string withNvrtc(Nvrtc& n, const std::string& kernels, const std::string& arch) {
  void* program = nullptr;
  if (n.create(&program, kernels.c_str(), "kernels.cu", 0, nullptr, nullptr) != 0)
    throw InternalError("NVRTC could not create a program");
  std::string option = "--gpu-architecture=" + arch;
  const char* options[] = {option.c_str(), "-default-device"};
  int rc = n.compile(program, 2, options);
  std::string image;
  if (rc == 0) {
    size_t size = 0;
    n.cubinSize(program, &size);
    image.resize(size);
    n.cubin(program, image.data());
  } else {
    size_t size = 0;
    n.logSize(program, &size);
    std::string log(size, '\0');
    n.log(program, log.data());
    n.destroy(&program);
    throw InternalError("NVRTC rejected generated CUDA C (teml emit --target cuda prints it):\n" + log);
  }
  n.destroy(&program);
  return image;
}

}  // namespace

std::string findNvcc() {
  if (const char* chosen = std::getenv("TEML_NVCC"))  // a path, or "none": NVRTC
    return std::string(chosen) == "none" ? "" : chosen;
  std::vector<std::string> candidates;
  if (const char* path = std::getenv("PATH")) {
    std::string p = path;
    for (size_t at = 0; at <= p.size();) {
      size_t end = p.find(':', at);
      if (end == std::string::npos) end = p.size();
      if (end > at) candidates.push_back(p.substr(at, end - at) + "/nvcc");
      at = end + 1;
    }
  }
  if (const char* home = std::getenv("CUDA_HOME")) candidates.push_back(std::string(home) + "/bin/nvcc");
  candidates.push_back("/usr/local/cuda/bin/nvcc");
  for (auto& c : candidates)
    if (executable(c)) return c;
  return "";
}

Cubin compileCubin(const std::string& source, const std::string& kernels, const std::string& arch,
                   const std::string& cacheDir) {
  std::string nvcc = findNvcc();
  Nvrtc* nvrtc = nvcc.empty() ? Nvrtc::get() : nullptr;
  if (nvcc.empty() && !nvrtc)
    throw UnavailableError("--target cuda: no CUDA compiler: nvcc is not on PATH, under $CUDA_HOME/bin or "
                           "/usr/local/cuda/bin, and libnvrtc does not load; install the CUDA toolkit");
  Cubin out;
  out.compiler = nvcc.empty() ? nvrtc->name() : nvccVersion(nvcc);
  std::string dir = cacheDir.empty() ? cache::defaultDirectory() : cacheDir;
  bool cached = cache::prepareDirectory(dir).empty();
  std::string path = dir + "/g" + contentHash((nvcc.empty() ? kernels : source) + '\0' + arch + '\0' + out.compiler) + ".cubin";
  if (cached) {
    cache::EntryCheck entry = cache::readEntry(path);
    if (entry.state == cache::EntryState::Valid) {
      out.image = entry.payload;
      return out;
    }
    if (entry.state == cache::EntryState::Damaged) cache::removeEntry(path);
  }
  out.image = nvcc.empty() ? withNvrtc(*nvrtc, kernels, arch) : withNvcc(nvcc, source, arch);
  out.compiledNow = true;
  if (cached) cache::publishEntry(path, out.image);  // a cache that cannot be written costs a compile next time
  return out;
}

}  // namespace teml::runtime
