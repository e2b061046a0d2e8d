// The CUDA driver (libcuda.so.1), loaded with dlopen when a CUDA program
// first runs, so that teml builds and runs CPU programs on machines with
// no CUDA at all. Without a driver or a device, UnavailableError (exit 4)
// says which is missing. The calls teml makes, on the device's primary
// context: device memory, copies, modules from cubins, launches.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "target/target.hpp"

namespace teml::runtime {

using DevicePtr = unsigned long long;  // CUdeviceptr

class CudaDriver {
 public:
  struct Api;  // the library's entry points (the .cpp lists them)
  // The process's driver on device 0, loaded and initialized once; throws UnavailableError.
  static CudaDriver& get();

  target::GpuLimits limits() const { return limits_; }  // of device 0

  DevicePtr allocate(size_t bytes);
  void release(DevicePtr p);
  void zero(DevicePtr p, size_t bytes, void* stream);
  void toDevice(DevicePtr to, const void* from, size_t bytes, void* stream);
  void toHost(void* to, DevicePtr from, size_t bytes, void* stream);
  void synchronize(void* stream);

  void* loadModule(const std::string& cubin);  // CUmodule
  void* function(void* module, const std::string& name);
  // The address and size of a __device__ variable of the module.
  std::pair<DevicePtr, size_t> global(void* module, const std::string& name);
  void allowSharedBytes(void* function, int64_t bytes);  // dynamic shared memory above 48 KiB
  // Milliseconds between two points of `stream`, by CUDA events: `work` runs between them.
  double timeMs(void* stream, const std::function<void()>& work);
  void launch(void* function, const int64_t grid[3], const int64_t block[3], int64_t sharedBytes, void* stream,
              std::vector<void*>& args);

 private:
  CudaDriver();
  void check(int result, const char* what) const;
  void* context_ = nullptr;
  target::GpuLimits limits_;
  Api* api_ = nullptr;
};

}  // namespace teml::runtime
