#include "runtime/cuda_driver.hpp"

#include <dlfcn.h>

#include "diag/diagnostics.hpp"

namespace teml::runtime {

namespace {
using CuInit = int (*)(unsigned);
using CuDeviceGetCount = int (*)(int*);
}  // namespace

CudaDriver::CudaDriver() {
  library_ = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library_)
    throw UnavailableError("--target cuda: this machine has no CUDA driver (libcuda.so.1 did not load); install "
                           "NVIDIA's driver, or run with --emulate in teml's GPU emulator");
  auto init = reinterpret_cast<CuInit>(dlsym(library_, "cuInit"));
  auto count = reinterpret_cast<CuDeviceGetCount>(dlsym(library_, "cuDeviceGetCount"));
  if (!init || !count) throw UnavailableError("--target cuda: libcuda.so.1 lacks cuInit or cuDeviceGetCount");
  if (init(0) != 0 || count(&devices_) != 0 || devices_ == 0)
    throw UnavailableError("--target cuda: the CUDA driver finds no GPU on this machine; run with --emulate in "
                           "teml's GPU emulator");
}

CudaDriver& CudaDriver::get() {
  static CudaDriver driver;  // a failed load throws again on the next use
  return driver;
}

}  // namespace teml::runtime
