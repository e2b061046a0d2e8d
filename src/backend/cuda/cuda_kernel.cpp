#include "backend/cuda/cuda_kernel.hpp"

#include <algorithm>
#include <cstdint>
#include <exception>
#include <functional>

#include "backend/cuda/cuda_host_interface.hpp"
#include "diag/diagnostics.hpp"
#include "runtime/cublas.hpp"
#include "runtime/cuda_compile.hpp"

namespace teml::backend {

using namespace ir;
using runtime::CudaDriver;
using runtime::DevicePtr;

namespace {

// What the host code's calls reach during one run on the device: the
// driver, the kernels' functions, the spare tensors between kernels.
class DeviceHost : public HostFailures {
 public:
  using Function = std::function<void*(const std::string&)>;
  using Take = std::function<DevicePtr(size_t)>;
  using Give = std::function<void(size_t, DevicePtr)>;
  DeviceHost(CudaDriver& driver, void* stream, const Function& function, const Take& take, const Give& give)
      : driver_(driver), stream_(stream), function_(function), take_(take), give_(give) {}
  // Tensors the host code left allocated (it returned early) go back too.
  ~DeviceHost() {
    for (auto& [p, bytes] : live_) give_(bytes, p);
  }

  teml_cuda_host table() {
    return teml_cuda_host{this, &DeviceHost::launch, &DeviceHost::allocate, &DeviceHost::release, &DeviceHost::gemm,
                          &DeviceHost::fail};
  }

 private:
  static DeviceHost& of(void* context) { return *static_cast<DeviceHost*>(context); }
  static DevicePtr device(void* p) { return static_cast<DevicePtr>(reinterpret_cast<uintptr_t>(p)); }

  static int launch(void* context, const char* kernel, const long* grid, const long* block, long shared, void** args,
                    long count) {
    DeviceHost& h = of(context);
    return h.guarded([&] {
      void* fn = h.function_(kernel);
      if (shared > 0) h.driver_.allowSharedBytes(fn, shared);
      int64_t g[3] = {grid[0], grid[1], grid[2]}, b[3] = {block[0], block[1], block[2]};
      std::vector<void*> values(args, args + count);
      h.driver_.launch(fn, g, b, shared, h.stream_, values);
    });
  }

  static void* allocate(void* context, const char*, long bytes) {
    DeviceHost& h = of(context);
    DevicePtr p = 0;
    bool failed = h.guarded([&] {
      p = h.take_(static_cast<size_t>(bytes));
      h.live_[p] = static_cast<size_t>(bytes);
      h.driver_.zero(p, static_cast<size_t>(bytes), h.stream_);
    });
    return failed ? nullptr : reinterpret_cast<void*>(static_cast<uintptr_t>(p));  // one taken stays in live_
  }
  static void release(void* context, void* pointer) {
    DeviceHost& h = of(context);
    auto it = h.live_.find(device(pointer));
    if (it == h.live_.end()) return;
    h.give_(it->second, it->first);
    h.live_.erase(it);
  }
  static int gemm(void* context, int single, int transA, int transB, long m, long n, long k, void* a, long lda, void* b,
                  long ldb, void* c, long ldc) {
    DeviceHost& h = of(context);
    return h.guarded([&] {
      runtime::Cublas::get().gemm(single != 0, transA != 0, transB != 0, m, n, k, device(a), lda, device(b), ldb,
                                  device(c), ldc, h.stream_);
    });
  }
  static int fail(void* context, int line, int col, const char* message, long value) {
    return of(context).failed(line, col, message, value);
  }

  CudaDriver& driver_;
  void* stream_;
  const Function& function_;
  const Take& take_;
  const Give& give_;
  std::map<DevicePtr, size_t> live_;
};

}  // namespace

CudaKernel::CudaKernel(const Program& lowered, const target::Target& target, const runtime::JitOptions& jit)
    : lowered_(lowered) {
  CudaDriver::get();  // exit 4 before compiling where nothing could run it
  auto cubin = runtime::compileCubin(codegen::emitCuda(lowered_, target), codegen::emitCudaKernels(lowered_, target),
                                     target.gpu.arch(), jit.cacheDir);
  cubin_ = cubin.image;
  runtime::JitOptions hostJit = jit;  // the host code, compiled as the emulator compiles it
  hostJit.entry = "teml_cuda_entry";
  host_ = std::make_unique<runtime::Kernel>(codegen::emitCudaHost(lowered_), hostJit);
  for (auto& w : host_->warnings()) warnings_.push_back(w);
  compiledNow_ = cubin.compiledNow;
  notes_.push_back("cuda: " + target.gpu.arch() + " kernels " + (compiledNow_ ? "compiled by " : "from the cache, by ") +
                   cubin.compiler);
  messages_ = codegen::cudaCheckMessages(lowered_);
}

CudaKernel::~CudaKernel() {
  try {  // cuMemFree waits for the kernels still using the memory
    for (auto& [key, p] : spare_) CudaDriver::get().release(p);
  } catch (...) {  // a driver that fails now leaves nothing to free
  }
}

void* CudaKernel::function(const std::string& name) const {
  CudaDriver& driver = CudaDriver::get();
  if (!module_) module_ = driver.loadModule(cubin_);
  auto it = functions_.find(name);
  if (it != functions_.end()) return it->second;
  return functions_[name] = driver.function(module_, name);
}

void CudaKernel::runOnDevice(const std::vector<DevicePtr>& buffers, void* stream) const {
  CudaDriver& driver = CudaDriver::get();
  if (!module_) module_ = driver.loadModule(cubin_);
  auto failure = driver.global(module_, "teml_failure");
  driver.zero(failure.first, failure.second, stream);
  DeviceHost::Function fn = [this](const std::string& name) { return function(name); };
  DeviceHost::Take take = [&](size_t bytes) {
    std::lock_guard<std::mutex> hold(spareLock_);
    auto it = spare_.find({stream, bytes});
    if (it == spare_.end()) return driver.allocate(bytes);
    DevicePtr p = it->second;
    spare_.erase(it);
    return p;
  };
  DeviceHost::Give give = [&](size_t bytes, DevicePtr p) {
    std::lock_guard<std::mutex> hold(spareLock_);
    spare_.emplace(std::make_pair(stream, bytes), p);
  };
  {
    DeviceHost host(driver, stream, fn, take, give);
    teml_cuda_host table = host.table();
    std::vector<void*> pointers;
    for (size_t k = 0; k < lowered_.tensors.size(); ++k)
      pointers.push_back(reinterpret_cast<void*>(static_cast<uintptr_t>(buffers.at(k))));
    auto entry = reinterpret_cast<CudaHostEntry>(host_->symbol("teml_cuda_entry"));
    if (entry(pointers.data(), &table) != 0) host.rethrow("cuda");
  }
  struct Failure {
    int failed, line, col, message;
    long long value;
  } f{};
  driver.toHost(&f, failure.first, sizeof f, stream);
  driver.synchronize(stream);
  if (f.failed) {
    std::string message = f.message >= 0 && static_cast<size_t>(f.message) < messages_.size() ? messages_[f.message] : "a run-time check failed";
    throw UserError(SourceLoc{f.line, f.col}, assertionMessage(message, f.value));
  }
}

std::optional<std::vector<double>> CudaKernel::timeRuns(std::vector<void*>& buffers, int runs) const {
  CudaDriver& driver = CudaDriver::get();
  std::vector<DevicePtr> device;
  std::vector<double> seconds;
  try {
    for (size_t k = 0; k < buffers.size(); ++k) {
      size_t bytes = static_cast<size_t>(std::max<int64_t>(1, lowered_.tensors[k].elementCount()) * ir::bytes(lowered_.tensors[k].dtype));
      device.push_back(driver.allocate(bytes));
      driver.toDevice(device.back(), buffers[k], bytes, nullptr);
    }
    for (int r = 0; r < runs; ++r)
      seconds.push_back(driver.timeMs(nullptr, [&] { runOnDevice(device, nullptr); }) / 1e3);
  } catch (...) {
    for (auto p : device) driver.release(p);
    throw;
  }
  for (auto p : device) driver.release(p);
  return seconds;
}

void CudaKernel::run(std::vector<void*>& buffers, int) const {
  CudaDriver& driver = CudaDriver::get();
  std::vector<DevicePtr> device;
  std::vector<size_t> sizes;
  for (auto& t : lowered_.tensors) sizes.push_back(static_cast<size_t>(std::max<int64_t>(1, t.elementCount()) * ir::bytes(t.dtype)));
  try {
    for (size_t k = 0; k < buffers.size(); ++k) {
      device.push_back(driver.allocate(sizes[k]));
      driver.toDevice(device.back(), buffers[k], sizes[k], nullptr);
    }
    runOnDevice(device, nullptr);
    for (size_t k = 0; k < buffers.size(); ++k) driver.toHost(buffers[k], device[k], sizes[k], nullptr);
    driver.synchronize(nullptr);
  } catch (...) {
    for (auto p : device) driver.release(p);
    throw;
  }
  for (auto p : device) driver.release(p);
}

}  // namespace teml::backend
