#include "backend/cuda/cuda_emulation.hpp"

#include <algorithm>
#include <exception>

#include "backend/cuda/cuda_emitter.hpp"
#include "backend/cuda/cuda_host_interface.hpp"
#include "diag/diagnostics.hpp"
#include "ir/mutator.hpp"
#include "ir/visitor.hpp"

namespace teml::backend {

using namespace ir;

namespace {

class Emulation : public HostFailures {
 public:
  Emulation(const Program& lowered, runtime::BufferMap& buffers, const interp::EmulatorOptions& options)
      : lowered_(lowered), buffers_(buffers), options_(options) {
    for (size_t k = 0; k < lowered.nests.size(); ++k) findHostParts(k, lowered.nests[k]);
  }

  teml_cuda_host table() {
    return teml_cuda_host{this, &Emulation::launch, &Emulation::allocate, &Emulation::release, &Emulation::gemm,
                          &Emulation::fail};
  }

 private:
  // Kernels by their functions' names; tensors the host defines between them.
  void findHostParts(size_t nest, const StmtP& s) {
    forEachStmt(s, [&](const StmtP& t) {
      if (t->kind == StmtKind::For && !t->as<For>().loopKind.kernel.symbol.empty())
        kernels_[t->as<For>().loopKind.kernel.symbol] = &t->as<For>();
    });
    struct Host : Visitor {
      Emulation& e;
      size_t nest;
      Host(Emulation& e, size_t nest) : e(e), nest(nest) {}
      void visitFor(const For& f) override {
        if (f.loopKind.kernel.name.empty()) Visitor::visitFor(f);  // not into kernels
      }
      void visitVarDef(const VarDef& v) override {
        e.hostTensors_[hostTensorKey(v.decl.name, nest, v.id)] = &v.decl;
        Visitor::visitVarDef(v);
      }
    };
    Host(*this, nest).visit(s);
  }

  static Emulation& of(void* context) { return *static_cast<Emulation*>(context); }

  // The buffer at `pointer`: the program's tensor `name`, or a tensor the host allocated.
  runtime::Buffer& bufferAt(void* pointer, const std::string& name) {
    auto it = buffers_.find(name);
    if (it != buffers_.end() && it->second.data() == pointer) return it->second;
    auto a = allocations_.find(pointer);
    if (a != allocations_.end()) return a->second;
    throw InternalError("emulator: '" + name + "' is given a pointer that is no tensor's");
  }

  static int launch(void* context, const char* kernel, const long* grid, const long* block, long, void** args,
                    long count) {
    Emulation& e = of(context);
    return e.guarded([&] { e.launch(kernel, grid, block, args, count); });
  }
  void launch(const std::string& kernel, const long* grid, const long* block, void** args, long count) {
    auto k = kernels_.find(kernel);
    if (k == kernels_.end()) throw InternalError("emulator: the host code launches '" + kernel + "', no kernel of the program");
    const GpuKernelPlan& plan = k->second->loopKind.kernel;
    for (int d = 0; d < 3; ++d)
      if (block[d] != plan.blockDim[d]) throw InternalError("emulator: '" + kernel + "' launched with another block");
    if (static_cast<size_t>(count) != plan.tensorArgs.size() + plan.scalarArgs.size())
      throw InternalError("emulator: '" + kernel + "' launched with " + std::to_string(count) + " arguments");
    // The kernel's tensors lent to it by name for the launch, and given back after.
    runtime::BufferMap lent;
    std::vector<runtime::Buffer*> owners;
    struct GiveBack {
      runtime::BufferMap& lent;
      std::vector<runtime::Buffer*>& owners;
      const std::vector<std::string>& names;
      ~GiveBack() {
        for (size_t i = 0; i < owners.size(); ++i) *owners[i] = std::move(lent.at(names[i]));
      }
    } giveBack{lent, owners, plan.tensorArgs};
    for (size_t i = 0; i < plan.tensorArgs.size(); ++i) {
      runtime::Buffer& owner = bufferAt(*static_cast<void**>(args[i]), plan.tensorArgs[i]);
      lent.emplace(plan.tensorArgs[i], std::move(owner));
      owners.push_back(&owner);
    }
    std::map<std::string, int64_t> scalars;
    for (size_t i = 0; i < plan.scalarArgs.size(); ++i)
      scalars[plan.scalarArgs[i]] = *static_cast<long*>(args[plan.tensorArgs.size() + i]);
    int64_t blocks[3] = {grid[0], grid[1], grid[2]};
    interp::emulateKernel(lowered_, *k->second, lent, scalars, blocks, options_);
  }

  static void* allocate(void* context, const char* tensor, long bytes) {
    Emulation& e = of(context);
    void* p = nullptr;
    e.guarded([&] {
      auto it = e.hostTensors_.find(tensor);
      if (it == e.hostTensors_.end())
        throw InternalError(std::string("emulator: the host allocates '") + tensor + "', no tensor of its");
      runtime::Buffer b(it->second->dtype, it->second->shape);  // zeros
      if (static_cast<size_t>(bytes) != std::max<size_t>(b.bytes(), ir::bytes(b.dtype())))
        throw InternalError(std::string("emulator: the host allocates ") + std::to_string(bytes) + " bytes for '" +
                            tensor + "'");
      void* data = b.data();
      e.allocations_.emplace(data, std::move(b));
      p = data;
    });
    return p;
  }
  static void release(void* context, void* pointer) { of(context).allocations_.erase(pointer); }

  // Row-major C[m][n] += op(A) op(B), as the runtime asks cuBLAS for it,
  // rounded to C's type at each step as the reference interpreter adds.
  static int gemm(void* context, int single, int transA, int transB, long m, long n, long k, void* a, long lda, void* b,
                  long ldb, void* c, long ldc) {
    Emulation& e = of(context);
    return e.guarded([&] {
      runtime::Buffer &A = e.pointed(a), &B = e.pointed(b), &C = e.pointed(c);
      for (long i = 0; i < m; ++i)
        for (long j = 0; j < n; ++j)
          for (long p = 0; p < k; ++p) {
            double product = A.get(transA ? p * lda + i : i * lda + p) * B.get(transB ? j * ldb + p : p * ldb + j);
            C.set(i * ldc + j, C.get(i * ldc + j) + (single ? static_cast<float>(product) : product));
          }
    });
  }
  runtime::Buffer& pointed(void* pointer) {
    for (auto& [name, b] : buffers_)
      if (b.data() == pointer) return b;
    return bufferAt(pointer, "");
  }

  static int fail(void* context, int line, int col, const char* message, long value) {
    return of(context).failed(line, col, message, value);
  }

  const Program& lowered_;
  runtime::BufferMap& buffers_;
  interp::EmulatorOptions options_;
  std::map<std::string, const For*> kernels_;
  std::map<std::string, const TensorDecl*> hostTensors_;
  std::map<void*, runtime::Buffer> allocations_;
};

}  // namespace

void emulateCuda(const Program& lowered, runtime::BufferMap& buffers, const runtime::JitOptions& jit,
                 const interp::EmulatorOptions& options) {
  runtime::JitOptions host = jit;
  host.entry = "teml_cuda_entry";
  runtime::Kernel code(codegen::emitCudaHost(lowered), host);
  auto entry = reinterpret_cast<CudaHostEntry>(code.symbol("teml_cuda_entry"));
  Emulation emulation(lowered, buffers, options);
  std::vector<void*> pointers;
  for (auto& t : lowered.tensors) pointers.push_back(buffers.at(t.name).data());
  teml_cuda_host table = emulation.table();
  if (entry(pointers.data(), &table) != 0) emulation.rethrow("emulator");
}

}  // namespace teml::backend
