// The CUDA driver (libcuda.so.1), loaded with dlopen when a CUDA program
// first runs, so that teml builds and runs CPU programs on machines with
// no CUDA at all. Without a driver or a device, UnavailableError (exit 4)
// says which is missing.
#pragma once
#include <string>

namespace teml::runtime {

class CudaDriver {
 public:
  // The process's driver, loaded and initialized once; throws UnavailableError.
  static CudaDriver& get();
  int devices() const { return devices_; }

 private:
  CudaDriver();
  void* library_ = nullptr;
  int devices_ = 0;
};

}  // namespace teml::runtime
