#include "backend/cuda/cuda_kernel.hpp"

#include <algorithm>
#include <functional>
#include <set>

#include "diag/diagnostics.hpp"
#include "ir/functor.hpp"
#include "ir/mutator.hpp"
#include "runtime/cublas.hpp"
#include "runtime/cuda_compile.hpp"

namespace teml::backend {

using namespace ir;
using runtime::CudaDriver;
using runtime::DevicePtr;

namespace {

// The value of an integer expression of the host (sizes, the host's
// iterators; no tensor: gpu_kernels keeps reads of data in kernels).
class HostValue : public ExprFunctor<int64_t()> {
 public:
  explicit HostValue(const std::map<std::string, int64_t>& env) : env_(env) {}
  int64_t of(const ExprP& e) { return dispatch(e); }

 private:
  int64_t visitIntConst(const IntConst& c) override { return c.value; }
  int64_t visitVar(const Var& v) override {
    auto it = env_.find(v.name);
    if (it == env_.end()) throw InternalError("cuda host: unbound iterator '" + v.name + "'");
    return it->second;
  }
  int64_t visitCast(const Cast& c) override { return of(c.a); }
  int64_t visitSelect(const Select& s) override { return of(s.cond) ? of(s.a) : of(s.b); }
  int64_t visitUnary(const Unary& u) override {
    int64_t x = of(u.a);
    if (u.op == UnaryOp::Neg) return -x;
    if (u.op == UnaryOp::Abs) return x < 0 ? -x : x;
    if (u.op == UnaryOp::Not) return !x;
    return needsGpu();
  }
  int64_t visitBinary(const Binary& b) override {
    std::optional<int64_t> v = integerValue(b.op, of(b.a), of(b.b));
    if (!v) throw UserError({}, "integer division by zero on the host");
    return *v;
  }
  int64_t visitFloatConst(const FloatConst&) override { return needsGpu(); }
  int64_t visitLoad(const Load&) override { return needsGpu(); }
  [[noreturn]] static int64_t needsGpu() {
    throw InternalError("cuda host: an expression of the host that needs the GPU");
  }
  const std::map<std::string, int64_t>& env_;
};

int64_t hostValue(const ExprP& e, const std::map<std::string, int64_t>& env) { return HostValue(env).of(e); }

// One run of the host code.
class HostRun : StmtFunctor<void()> {
 public:
  using Take = std::function<DevicePtr(size_t)>;
  using Give = std::function<void(size_t, DevicePtr)>;
  HostRun(CudaDriver& driver, const std::vector<TensorDecl>& declared, std::map<std::string, std::vector<DevicePtr>>& tensors,
          void* stream, const std::function<void*(const std::string&)>& function, const Take& take, const Give& give)
      : driver_(driver), tensors_(tensors), stream_(stream), function_(function), take_(take), give_(give) {
    for (auto& t : declared)
      if (t.dtype == DType::F32) single_.insert(t.name);
  }

  void exec(const StmtP& s) { dispatch(s); }

 private:
  void visitSeq(const Seq& q) override {
    for (auto& t : q.stmts) exec(t);
  }
  void visitFor(const For& f) override {
    if (!f.loopKind.kernel.name.empty()) return launch(f);
    int64_t b = hostValue(f.begin, env_), e = hostValue(f.end, env_);
    for (int64_t i = b; f.step > 0 ? i < e : i > e; i += f.step) {
      env_[f.var] = i;
      exec(f.body);
    }
    env_.erase(f.var);
  }
  void visitIf(const If& i) override {
    if (hostValue(i.cond, env_)) exec(i.then);
    else if (i.otherwise) exec(i.otherwise);
  }
  void visitAssert(const Assert& a) override {
    if (!hostValue(a.cond, env_)) throw UserError(a.loc, assertionMessage(a.message, a.shown ? hostValue(a.shown, env_) : 0));
    exec(a.body);
  }
  void visitVarDef(const VarDef& v) override {  // a tensor of global memory between kernels, all zeros
    if (v.decl.dtype == DType::F32) single_.insert(v.decl.name);
    size_t bytes = static_cast<size_t>(std::max<int64_t>(1, v.decl.elementCount()) * ir::bytes(v.decl.dtype));
    DevicePtr p = take_(bytes);
    driver_.zero(p, bytes, stream_);
    tensors_[v.decl.name].push_back(p);
    try {
      exec(v.body);
    } catch (...) {
      tensors_[v.decl.name].pop_back();
      give_(bytes, p);
      throw;
    }
    tensors_[v.decl.name].pop_back();
    give_(bytes, p);
  }
  void visitStore(const Store&) override { outsideKernels(); }
  void visitReduce(const Reduce&) override { outsideKernels(); }
  // A matrix product as_lib made: cuBLAS on the stream, on the tensors' device memory.
  void visitLibCall(const LibCall& c) override {
    if (c.routine != "gemm" || c.tensors.size() != 3 || c.args.size() != 8)
      throw InternalError("cuda host: unknown library call " + c.routine);
    auto at = [&](size_t k) { return tensors_.at(c.tensors[k]).back(); };
    const std::vector<int64_t>& a = c.args;
    runtime::Cublas::get().gemm(single_.count(c.tensors[0]) > 0, a[0], a[1], a[2], a[3], a[4], at(1), a[5], at(2), a[6],
                                at(0), a[7], stream_);
  }
  void visitBarrier(const Barrier&) override { outsideKernels(); }
  void visitExchange(const Exchange&) override { throw InternalError("an MPI exchange in a CUDA program"); }
  [[noreturn]] static void outsideKernels() { throw InternalError("cuda host: a statement outside every kernel"); }


 private:
  // The launch as the kernel's plan has it (lowering/cuda/gpu_launches).
  void launch(const For& root) {
    const GpuKernelPlan& plan = root.loopKind.kernel;
    int64_t grid[3];
    for (int d = 0; d < 3; ++d) grid[d] = hostValue(plan.grid[d], env_);
    if (grid[0] <= 0 || grid[1] <= 0 || grid[2] <= 0) return;  // no block
    std::vector<DevicePtr> pointers;
    std::vector<long> values;
    for (auto& t : plan.tensorArgs) pointers.push_back(tensors_.at(t).back());
    for (auto& v : plan.scalarArgs) values.push_back(static_cast<long>(env_.at(v)));
    std::vector<void*> args;
    for (auto& p : pointers) args.push_back(&p);
    for (auto& v : values) args.push_back(&v);
    void* fn = function_(plan.symbol);
    if (plan.dynamicShared) driver_.allowSharedBytes(fn, plan.sharedBytes);
    driver_.launch(fn, grid, plan.blockDim, plan.dynamicShared ? plan.sharedBytes : 0, stream_, args);
  }

  CudaDriver& driver_;
  std::map<std::string, std::vector<DevicePtr>>& tensors_;
  void* stream_;
  const std::function<void*(const std::string&)>& function_;
  const Take& take_;
  const Give& give_;
  std::map<std::string, int64_t> env_;
  std::set<std::string> single_;  // the float32 tensors (a library call's type)
};

}  // namespace

CudaKernel::CudaKernel(const Program& lowered, const target::Target& target, const runtime::JitOptions& jit)
    : lowered_(lowered) {
  CudaDriver::get();  // exit 4 before compiling where nothing could run it
  auto cubin = runtime::compileCubin(codegen::emitCuda(lowered_, target), codegen::emitCudaKernels(lowered_, target),
                                     target.gpu.arch(), jit.cacheDir);
  cubin_ = cubin.image;
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
  std::map<std::string, std::vector<DevicePtr>> tensors;
  for (size_t k = 0; k < lowered_.tensors.size(); ++k) tensors[lowered_.tensors[k].name].push_back(buffers.at(k));
  if (!module_) module_ = driver.loadModule(cubin_);
  auto failure = driver.global(module_, "teml_failure");
  driver.zero(failure.first, failure.second, stream);
  std::function<void*(const std::string&)> fn = [this](const std::string& name) { return function(name); };
  HostRun::Take take = [&](size_t bytes) {
    std::lock_guard<std::mutex> hold(spareLock_);
    auto it = spare_.find({stream, bytes});
    if (it == spare_.end()) return driver.allocate(bytes);
    DevicePtr p = it->second;
    spare_.erase(it);
    return p;
  };
  HostRun::Give give = [&](size_t bytes, DevicePtr p) {
    std::lock_guard<std::mutex> hold(spareLock_);
    spare_.emplace(std::make_pair(stream, bytes), p);
  };
  for (auto& nest : lowered_.nests) HostRun(driver, lowered_.tensors, tensors, stream, fn, take, give).exec(nest);
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
