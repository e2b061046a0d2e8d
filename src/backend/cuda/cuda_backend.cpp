#include "backend/cuda/cuda_backend.hpp"

#include "backend/cuda/cuda_emitter.hpp"
#include "backend/cuda/cuda_kernel.hpp"

namespace teml::backend {

namespace {

class CudaBackend : public Backend {
 public:
  explicit CudaBackend(const target::Target& target) : target_(target) {}
  std::string emit(const ir::Program& lowered) const override { return codegen::emitCuda(lowered, target_); }
  std::unique_ptr<Kernel> build(const ir::Program& lowered, const runtime::JitOptions& jit) const override {
    return std::make_unique<CudaKernel>(lowered, target_, jit);
  }

 private:
  target::Target target_;
};

}  // namespace

std::unique_ptr<Backend> makeCudaBackend(const target::Target& target) { return std::make_unique<CudaBackend>(target); }

}  // namespace teml::backend
