#include "runtime/cuda_driver.hpp"

#include <dlfcn.h>

#include "diag/diagnostics.hpp"

namespace teml::runtime {

// The driver API's entry points (cuda.h), typed by hand: teml builds
// without CUDA's headers.
struct CudaDriver::Api {
  int (*init)(unsigned);
  int (*deviceGetCount)(int*);
  int (*deviceGet)(int*, int);
  int (*deviceGetAttribute)(int*, int, int);
  int (*deviceGetName)(char*, int, int);
  int (*primaryCtxRetain)(void**, int);
  int (*ctxSetCurrent)(void*);
  int (*memAlloc)(DevicePtr*, size_t);
  int (*memFree)(DevicePtr);
  int (*memsetD8Async)(DevicePtr, unsigned char, size_t, void*);
  int (*memcpyHtoDAsync)(DevicePtr, const void*, size_t, void*);
  int (*memcpyDtoHAsync)(void*, DevicePtr, size_t, void*);
  int (*streamSynchronize)(void*);
  int (*moduleLoadData)(void**, const void*);
  int (*moduleGetFunction)(void**, void*, const char*);
  int (*moduleGetGlobal)(DevicePtr*, size_t*, void*, const char*);
  int (*funcSetAttribute)(void*, int, int);
  int (*launchKernel)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void*, void**, void**);
  int (*getErrorString)(int, const char**);
  int (*eventCreate)(void**, unsigned);
  int (*eventRecord)(void*, void*);
  int (*eventSynchronize)(void*);
  int (*eventElapsedTime)(float*, void*, void*);
  int (*eventDestroy)(void*);
};

namespace {

template <class F>
void bind(void* library, F*& slot, const char* name) {
  slot = reinterpret_cast<F*>(dlsym(library, name));
  if (!slot) throw UnavailableError(std::string("--target cuda: the CUDA driver lacks ") + name + " (too old a driver?)");
}

// cuDeviceGetAttribute's numbers (cuda.h).
enum Attribute {
  kMaxThreadsPerBlock = 1, kSharedPerBlock = 8, kWarpSize = 10, kMultiprocessors = 16, kMajor = 75, kMinor = 76,
  kSharedOptIn = 97
};

}  // namespace

CudaDriver::CudaDriver() {
  library_ = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library_)
    throw UnavailableError("--target cuda: this machine has no CUDA driver (libcuda.so.1 did not load); install "
                           "NVIDIA's driver, or run with --emulate in teml's GPU emulator");
  api_ = new Api{};
  bind(library_, api_->init, "cuInit");
  bind(library_, api_->deviceGetCount, "cuDeviceGetCount");
  bind(library_, api_->deviceGet, "cuDeviceGet");
  bind(library_, api_->deviceGetAttribute, "cuDeviceGetAttribute");
  bind(library_, api_->deviceGetName, "cuDeviceGetName");
  bind(library_, api_->primaryCtxRetain, "cuDevicePrimaryCtxRetain");
  bind(library_, api_->ctxSetCurrent, "cuCtxSetCurrent");
  bind(library_, api_->memAlloc, "cuMemAlloc_v2");
  bind(library_, api_->memFree, "cuMemFree_v2");
  bind(library_, api_->memsetD8Async, "cuMemsetD8Async");
  bind(library_, api_->memcpyHtoDAsync, "cuMemcpyHtoDAsync_v2");
  bind(library_, api_->memcpyDtoHAsync, "cuMemcpyDtoHAsync_v2");
  bind(library_, api_->streamSynchronize, "cuStreamSynchronize");
  bind(library_, api_->moduleLoadData, "cuModuleLoadData");
  bind(library_, api_->moduleGetFunction, "cuModuleGetFunction");
  bind(library_, api_->moduleGetGlobal, "cuModuleGetGlobal_v2");
  bind(library_, api_->funcSetAttribute, "cuFuncSetAttribute");
  bind(library_, api_->launchKernel, "cuLaunchKernel");
  bind(library_, api_->getErrorString, "cuGetErrorString");
  bind(library_, api_->eventCreate, "cuEventCreate");
  bind(library_, api_->eventRecord, "cuEventRecord");
  bind(library_, api_->eventSynchronize, "cuEventSynchronize");
  bind(library_, api_->eventElapsedTime, "cuEventElapsedTime");
  bind(library_, api_->eventDestroy, "cuEventDestroy_v2");
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
