#include "runtime/cuda_driver.hpp"

#include "diag/diagnostics.hpp"
#include "runtime/dynamic_library.hpp"

namespace teml::runtime {

// The driver API's entry points (cuda.h), typed by hand: teml builds
// without CUDA's headers.
#define TEML_CUDA_DRIVER_API(X)                                                                                   \
  X(int, init, "cuInit", (unsigned))                                                                              \
  X(int, deviceGetCount, "cuDeviceGetCount", (int*))                                                              \
  X(int, deviceGet, "cuDeviceGet", (int*, int))                                                                   \
  X(int, deviceGetAttribute, "cuDeviceGetAttribute", (int*, int, int))                                            \
  X(int, deviceGetName, "cuDeviceGetName", (char*, int, int))                                                     \
  X(int, primaryCtxRetain, "cuDevicePrimaryCtxRetain", (void**, int))                                             \
  X(int, ctxSetCurrent, "cuCtxSetCurrent", (void*))                                                               \
  X(int, memAlloc, "cuMemAlloc_v2", (DevicePtr*, size_t))                                                         \
  X(int, memFree, "cuMemFree_v2", (DevicePtr))                                                                    \
  X(int, memsetD8Async, "cuMemsetD8Async", (DevicePtr, unsigned char, size_t, void*))                             \
  X(int, memcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", (DevicePtr, const void*, size_t, void*))                        \
  X(int, memcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", (void*, DevicePtr, size_t, void*))                              \
  X(int, streamSynchronize, "cuStreamSynchronize", (void*))                                                       \
  X(int, moduleLoadData, "cuModuleLoadData", (void**, const void*))                                               \
  X(int, moduleGetFunction, "cuModuleGetFunction", (void**, void*, const char*))                                  \
  X(int, moduleGetGlobal, "cuModuleGetGlobal_v2", (DevicePtr*, size_t*, void*, const char*))                      \
  X(int, funcSetAttribute, "cuFuncSetAttribute", (void*, int, int))                                               \
  X(int, launchKernel, "cuLaunchKernel",                                                                          \
    (void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void*, void**, void**))         \
  X(int, getErrorString, "cuGetErrorString", (int, const char**))                                                 \
  X(int, eventCreate, "cuEventCreate", (void**, unsigned))                                                        \
  X(int, eventRecord, "cuEventRecord", (void*, void*))                                                            \
  X(int, eventSynchronize, "cuEventSynchronize", (void*))                                                         \
  X(int, eventElapsedTime, "cuEventElapsedTime", (float*, void*, void*))                                          \
  X(int, eventDestroy, "cuEventDestroy_v2", (void*))

struct CudaDriver::Api {
  TEML_CUDA_DRIVER_API(TEML_ENTRY_FIELD)
};

namespace {

const char* bindEntries(const DynamicLibrary& library, CudaDriver::Api& api) {
  TEML_CUDA_DRIVER_API(TEML_ENTRY_BIND)
  return nullptr;
}

// cuDeviceGetAttribute's numbers (cuda.h).
enum Attribute {
  kMaxThreadsPerBlock = 1, kSharedPerBlock = 8, kWarpSize = 10, kMultiprocessors = 16, kMajor = 75, kMinor = 76,
  kSharedOptIn = 97
};

}  // namespace

CudaDriver::CudaDriver() {
  static const DynamicLibrary library({"libcuda.so.1"});
  if (!library.loaded())
    throw UnavailableError("--target cuda: this machine has no CUDA driver (libcuda.so.1 did not load); install "
                           "NVIDIA's driver, or run with --emulate in teml's GPU emulator");
  api_ = new Api{};
  if (const char* missing = bindEntries(library, *api_))
    throw UnavailableError(std::string("--target cuda: the CUDA driver lacks ") + missing + " (too old a driver?)");
  int devices = 0;
  if (api_->init(0) != 0 || api_->deviceGetCount(&devices) != 0 || devices == 0)
    throw UnavailableError("--target cuda: the CUDA driver finds no GPU on this machine; run with --emulate in "
                           "teml's GPU emulator");
  int device = 0;
  check(api_->deviceGet(&device, 0), "cuDeviceGet");
  check(api_->primaryCtxRetain(&context_, device), "cuDevicePrimaryCtxRetain");
  check(api_->ctxSetCurrent(context_), "cuCtxSetCurrent");
  auto attribute = [&](int a) {
    int v = 0;
    check(api_->deviceGetAttribute(&v, a, device), "cuDeviceGetAttribute");
    return v;
  };
  limits_.sm = attribute(kMajor) * 10 + attribute(kMinor);
  limits_.warpSize = attribute(kWarpSize);
  limits_.multiprocessors = attribute(kMultiprocessors);
  limits_.maxThreadsPerBlock = attribute(kMaxThreadsPerBlock);
  limits_.sharedBytes = attribute(kSharedPerBlock);
  limits_.sharedBytesOptIn = attribute(kSharedOptIn);
  char name[256] = {0};
  if (api_->deviceGetName(name, sizeof name, device) == 0) limits_.device = name;
}

CudaDriver& CudaDriver::get() {
  static CudaDriver driver;  // a failed load throws again on the next use
  return driver;
}

void CudaDriver::check(int result, const char* what) const {
  if (result == 0) return;
  const char* text = nullptr;
  if (api_->getErrorString) api_->getErrorString(result, &text);
  throw InternalError(std::string("CUDA driver: ") + what + " failed: " + (text ? text : "error " + std::to_string(result)));
}

DevicePtr CudaDriver::allocate(size_t bytes) {
  DevicePtr p = 0;
  check(api_->memAlloc(&p, bytes ? bytes : 1), "cuMemAlloc");
  return p;
}
void CudaDriver::release(DevicePtr p) { api_->memFree(p); }
void CudaDriver::zero(DevicePtr p, size_t bytes, void* stream) { check(api_->memsetD8Async(p, 0, bytes, stream), "cuMemsetD8Async"); }
void CudaDriver::toDevice(DevicePtr to, const void* from, size_t bytes, void* stream) {
  check(api_->memcpyHtoDAsync(to, from, bytes, stream), "cuMemcpyHtoDAsync");
}
void CudaDriver::toHost(void* to, DevicePtr from, size_t bytes, void* stream) {
  check(api_->memcpyDtoHAsync(to, from, bytes, stream), "cuMemcpyDtoHAsync");
}
void CudaDriver::synchronize(void* stream) { check(api_->streamSynchronize(stream), "cuStreamSynchronize"); }

void* CudaDriver::loadModule(const std::string& cubin) {
  void* module = nullptr;
  check(api_->moduleLoadData(&module, cubin.data()), "cuModuleLoadData");
  return module;
}
void* CudaDriver::function(void* module, const std::string& name) {
  void* f = nullptr;
  check(api_->moduleGetFunction(&f, module, name.c_str()), "cuModuleGetFunction");
  return f;
}
std::pair<DevicePtr, size_t> CudaDriver::global(void* module, const std::string& name) {
  DevicePtr p = 0;
  size_t bytes = 0;
  check(api_->moduleGetGlobal(&p, &bytes, module, name.c_str()), "cuModuleGetGlobal");
  return {p, bytes};
}
void CudaDriver::allowSharedBytes(void* function, int64_t bytes) {
  constexpr int kMaxDynamicShared = 8;  // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
  check(api_->funcSetAttribute(function, kMaxDynamicShared, static_cast<int>(bytes)), "cuFuncSetAttribute");
}
double CudaDriver::timeMs(void* stream, const std::function<void()>& work) {
  void *start = nullptr, *stop = nullptr;
  check(api_->eventCreate(&start, 0), "cuEventCreate");
  check(api_->eventCreate(&stop, 0), "cuEventCreate");
  float ms = 0;
  try {
    check(api_->eventRecord(start, stream), "cuEventRecord");
    work();
    check(api_->eventRecord(stop, stream), "cuEventRecord");
    check(api_->eventSynchronize(stop), "cuEventSynchronize");
    check(api_->eventElapsedTime(&ms, start, stop), "cuEventElapsedTime");
  } catch (...) {
    api_->eventDestroy(start);
    api_->eventDestroy(stop);
    throw;
  }
  api_->eventDestroy(start);
  api_->eventDestroy(stop);
  return ms;
}

void CudaDriver::launch(void* function, const int64_t grid[3], const int64_t block[3], int64_t sharedBytes,
                        void* stream, std::vector<void*>& args) {
  check(api_->launchKernel(function, static_cast<unsigned>(grid[0]), static_cast<unsigned>(grid[1]),
                           static_cast<unsigned>(grid[2]), static_cast<unsigned>(block[0]),
                           static_cast<unsigned>(block[1]), static_cast<unsigned>(block[2]),
                           static_cast<unsigned>(sharedBytes), stream, args.data(), nullptr),
        "cuLaunchKernel");
}

}  // namespace teml::runtime
