#include "backend/reference_kernels.hpp"

#include <cstring>
#include <functional>

#include "backend/cuda/cuda_emulation.hpp"
#include "interp/interpreter.hpp"

namespace teml::backend {

namespace {

class ReferenceKernel : public Kernel {
 public:
  using Body = std::function<void(const ir::Program&, runtime::BufferMap&)>;
  ReferenceKernel(ir::Program program, Body body) : program_(std::move(program)), body_(std::move(body)) {}

  void run(std::vector<void*>& buffers, int threads) const override {
    (void)threads;
    runtime::BufferMap copies = runtime::allocateBuffers(program_);
    for (size_t k = 0; k < buffers.size(); ++k) {
      runtime::Buffer& b = copies.at(program_.tensors[k].name);
      std::memcpy(b.data(), buffers[k], b.bytes());
    }
    body_(program_, copies);
    for (size_t k = 0; k < buffers.size(); ++k) {
      const runtime::Buffer& b = copies.at(program_.tensors[k].name);
      std::memcpy(buffers[k], b.data(), b.bytes());
    }
  }
  bool compiledNow() const override { return false; }
  const std::vector<std::string>& notes() const override { return none_; }
  const std::vector<std::string>& warnings() const override { return none_; }

 private:
  ir::Program program_;
  Body body_;
  std::vector<std::string> none_;
};

}  // namespace

std::unique_ptr<Kernel> interpreterKernel(const ir::Program& program) {
  return std::make_unique<ReferenceKernel>(
      program, [](const ir::Program& p, runtime::BufferMap& b) { interp::run(p, b); });
}

std::unique_ptr<Kernel> emulatorKernel(const ir::Program& lowered, const runtime::JitOptions& jit) {
  return std::make_unique<ReferenceKernel>(
      lowered, [jit](const ir::Program& p, runtime::BufferMap& b) { emulateCuda(p, b, jit); });
}

}  // namespace teml::backend
