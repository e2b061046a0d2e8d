#include "backend/cuda/cuda_backend.hpp"

#include "backend/cuda/cuda_emitter.hpp"
#include "runtime/cuda_driver.hpp"

namespace teml::backend {

namespace {

class CudaBackend : public Backend {
 public:
  explicit CudaBackend(const target::Target& target) : target_(target) {}
  std::string emit(const ir::Program& lowered) const override { return codegen::emitCuda(lowered, target_); }
  std::unique_ptr<Kernel> build(const ir::Program&, const runtime::JitOptions&) const override {
    runtime::CudaDriver::get();  // throws UnavailableError (exit 4) without a driver or device
    throw UnavailableError("--target cuda: running on a GPU is not built yet (kernels compile with nvcc; "
                           "use --emulate to run them in teml's emulator)");
  }

 private:
  target::Target target_;
};

}  // namespace

std::unique_ptr<Backend> makeCudaBackend(const target::Target& target) { return std::make_unique<CudaBackend>(target); }

}  // namespace teml::backend
