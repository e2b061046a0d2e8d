// A program lowered for a CUDA target, compiled (runtime/cuda_compile) and
// run on the GPU through the driver (runtime/cuda_driver): the host code
// the emitter prints, compiled by the system C compiler (runtime/jit) and
// called with the driver behind its interface (cuda_host_interface.hpp):
// launches, tensors in global memory between kernels, cuBLAS.
#pragma once
#include <map>
#include <memory>
#include <mutex>

#include "backend/backend.hpp"
#include "backend/cuda/cuda_emitter.hpp"
#include "runtime/jit.hpp"
#include "runtime/cuda_driver.hpp"

namespace teml::backend {

class CudaKernel : public Kernel {
 public:
  CudaKernel(const ir::Program& lowered, const target::Target& target, const runtime::JitOptions& jit);
  ~CudaKernel() override;
  // Host buffers: copied to the GPU, run, copied back.
  void run(std::vector<void*>& buffers, int threads = 0) const override;
  // Buffers already on the device (one per program tensor), on `stream`
  // (a CUstream; null: the default stream), without copies.
  void runOnDevice(const std::vector<runtime::DevicePtr>& buffers, void* stream) const override;
  // The runs with the data on the device, each timed by CUDA events (kernels only).
  std::optional<std::vector<double>> timeRuns(std::vector<void*>& buffers, int runs) const override;
  bool compiledNow() const override { return compiledNow_; }
  const std::vector<std::string>& notes() const override { return notes_; }
  const std::vector<std::string>& warnings() const override { return warnings_; }

 private:
  void* function(const std::string& name) const;

  ir::Program lowered_;
  std::string cubin_;
  std::unique_ptr<runtime::Kernel> host_;  // the host code, compiled
  std::vector<std::string> messages_;
  bool compiledNow_ = false;
  std::vector<std::string> notes_, warnings_;
  mutable void* module_ = nullptr;
  mutable std::map<std::string, void*> functions_;
  // The host's tensors between kernels, kept for the next run on the same
  // stream instead of freed (cuMemAlloc and cuMemFree stall the GPU between
  // kernels); the stream's order makes the reuse safe.
  mutable std::mutex spareLock_;
  mutable std::multimap<std::pair<void*, size_t>, runtime::DevicePtr> spare_;
};

}  // namespace teml::backend
