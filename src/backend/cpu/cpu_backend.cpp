// The CPU back end: C with OpenMP (codegen::emitC), compiled by the system
// C compiler and loaded with dlopen (runtime::Kernel), run on the target's
// threads.
#include "backend/cpu/cpu_backend.hpp"

#include "backend/cpu/c_emitter.hpp"

namespace teml::backend {

namespace {

class CpuKernel : public Kernel {
 public:
  CpuKernel(const std::string& source, const runtime::JitOptions& jit, const std::vector<std::string>& libraries,
            int threads)
      : kernel_(source, jit, libraries), threads_(threads) {}
  void run(std::vector<void*>& buffers, int threads) const override {
    kernel_.run(buffers, threads > 0 ? threads : threads_);
  }
  bool compiledNow() const override { return kernel_.compiledNow(); }
  void* symbol(const std::string& name) const override { return kernel_.symbol(name); }
  const std::vector<std::string>& notes() const override { return kernel_.notes(); }
  const std::vector<std::string>& warnings() const override { return kernel_.warnings(); }

 private:
  runtime::Kernel kernel_;
  int threads_;
};

class CpuBackend : public Backend {
 public:
  explicit CpuBackend(const target::Target& target) : target_(target) {}
  std::string emit(const ir::Program& lowered) const override { return codegen::emitC(lowered, target_); }
  std::unique_ptr<Kernel> build(const ir::Program& lowered, const runtime::JitOptions& jit) const override {
    return std::make_unique<CpuKernel>(emit(lowered), jit, codegen::linkFlags(lowered), target_.threads);
  }

 private:
  target::Target target_;
};

}  // namespace

std::unique_ptr<Backend> makeCpuBackend(const target::Target& target) { return std::make_unique<CpuBackend>(target); }

}  // namespace teml::backend
