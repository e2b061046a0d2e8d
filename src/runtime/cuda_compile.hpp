// CUDA C to a cubin for one architecture: with nvcc where it is on PATH,
// under $CUDA_HOME or /usr/local/cuda, else with NVRTC (libnvrtc, loaded
// with dlopen); kept in the kernel cache, keyed by the source, the
// architecture and the compiler's version, so a repeated run compiles
// nothing. Neither compiler: UnavailableError (exit 4).
#pragma once
#include <string>

namespace teml::runtime {

// The nvcc teml uses ("" when there is none): $TEML_NVCC when set ("none":
// NVRTC only), else the first found.
std::string findNvcc();

struct Cubin {
  std::string image;        // the cubin's bytes
  bool compiledNow = false;  // false: from the cache
  std::string compiler;      // "nvcc 13.0..." or "NVRTC 13.0"
};

// `source`: the whole file (nvcc); `kernels`: the device code alone (NVRTC,
// which has no host headers). `cacheDir` "": the default cache.
Cubin compileCubin(const std::string& source, const std::string& kernels, const std::string& arch,
                   const std::string& cacheDir);

}  // namespace teml::runtime
