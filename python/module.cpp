// teml's Python extension (`teml._teml`): the free-form front end and the
// JIT of the `teml` command, over the same library (teml_core). The pure
// Python layer (python/teml/) checks arguments and shapes results.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <tuple>
#include <set>

#include <cstdlib>
#include <cstring>

#include "analysis/reuse.hpp"
#include "analysis/written_before_read.hpp"
#include "lowering/reduction_init.hpp"
#include "autodiff/gradient.hpp"
#include "backend/backend.hpp"
#include "backend/reference_kernels.hpp"
#include "backend/cpu/c_emitter.hpp"
#include "backend/cpu/size_generic_kernels.hpp"
#include "runtime/cuda_driver.hpp"
#include "lowering/lower.hpp"
#include "diag/diagnostics.hpp"
#include "cache/directory.hpp"
#include "driver/driver.hpp"
#include "driver/gradient_pipeline.hpp"
#include "frontend/freeform/freeform.hpp"
#include "pipeline/freeform_schedule.hpp"
#include "pipeline/size_probes.hpp"
#include "schedule/primitives.hpp"
#include "frontend/freeform/value.hpp"
#include "ir/printer.hpp"
#include "ir/verify.hpp"
#include "runtime/jit.hpp"
#include "runtime/thread_waits.hpp"

namespace py = pybind11;
using namespace teml;

namespace {

// The package's target, made once: this machine, OpenMP's default threads
// (each run names its own count).
const target::Target& pythonTarget() {
  static const target::Target t = driver::machineTarget(0);
  return t;
}

// The target of a free-form entry: this machine's CPU, or a CUDA GPU (the
// device's limits where the driver finds one, else sm_90's).
target::Target targetNamed(const std::string& name) {
  auto kind = target::kindNamed(name);
  if (!kind) throw UsageError("target must be \"cpu\" or \"cuda\", not \"" + name + "\"");
  if (*kind == target::Kind::Cpu) return pythonTarget();
  target::Target t = target::cudaTarget();
  try {
    t.gpu = runtime::CudaDriver::get().limits();
  } catch (const UnavailableError&) {
  }
  return t;
}

// A program lowered for a GPU, run in the emulator on the arrays (one per
// tensor, in order), which get the results back.
void emulateOn(const ir::Program& program, const target::Target& target, const runtime::JitOptions& jit,
               const std::vector<py::array>& arrays) {
  auto kernel = backend::emulatorKernel(lowering::lower(program, target), jit);
  std::vector<void*> ptrs;
  for (auto& a : arrays) ptrs.push_back(const_cast<void*>(a.data()));
  py::gil_scoped_release unlocked;
  kernel->run(ptrs, 0);
}

// A CUDA kernel run on device pointers (one per tensor) on `stream` (a
// CUstream; 0: the default stream), without copies.
void runKernelOnDevice(const backend::Kernel& kernel, const std::vector<uintptr_t>& pointers, uintptr_t stream) {
  std::vector<runtime::DevicePtr> device(pointers.begin(), pointers.end());
  py::gil_scoped_release unlocked;
  kernel.runOnDevice(device, reinterpret_cast<void*>(stream));
}

// A compiled free-form entry: its parameters, IR, C, and the kernel (compiled on first use).
class Compiled {
 public:
  Compiled(freeform::FreeformProgram p, runtime::JitOptions jit, target::Target target, bool emulate)
      : program_(std::move(p)), target_(std::move(target)), jit_(std::move(jit)), emulate_(emulate) {
    if (std::string broken = ir::verify(program_.program); !broken.empty())
      throw InternalError("the front end produced ill-formed IR: " + broken);
  }

  // (name, dtype, shape, role: ir::roleName) of each parameter, in order.
  std::vector<py::tuple> params() const {
    std::vector<py::tuple> out;
    for (auto& t : program_.program.tensors)
      out.push_back(py::make_tuple(t.name, freeform::dtypeText(t.dtype), t.shape, ir::roleName(program_.program.roleOf(t.name))));
    return out;
  }
  std::string ir() const { return ir::toString(program_.program, true); }
  std::string loweredIr() const { return ir::toString(lowering::lower(program_.program, target_), true); }
  std::string cSource() const { return backend::emitFor(program_.program, target_); }
  std::string targetName() const { return target::kindName(target_.kind); }
  // The outputs whose starting values the program never sees (every element
  // stored before it is read, or set to zero by the kernel before its first
  // reduction: lowering/reduction_init.hpp): an `out=` array for them need
  // not be zeroed.
  const std::set<std::string>& writtenBeforeRead() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!written_) {
      written_ = analysis::writtenBeforeRead(program_.program);
      if (lowering::setsOutputsAtFirstReduction(target_) && !emulate_) {
        ir::Program lowered = program_.program;  // the kernel's lowering sets them in the same way
        for (auto& t : lowering::initOutputsAtFirstReduction(lowered)) written_->insert(t);
      }
    }
    return *written_;
  }

  // The inputs worth copying to a 64-byte boundary when an array arrives
  // off one (NumPy aligns to 16): a vector load of such an array crosses a
  // cache line every other time, which costs where the program reads each
  // element many times from the caches (attention's Q, K and V: 9% with
  // AVX2), and the copy is cheap where the array fits in them. Not on a
  // core that runs 64-byte vectors as two 32-byte halves (Zen 4): there
  // the kernels ran as fast on NumPy's arrays as on aligned copies, and
  // the copy only added its time (docs/python.md).
  const std::set<std::string>& alignedCopies() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!aligned_) {
      aligned_.emplace();
      for (auto& t : program_.program.tensors)
        if (program_.program.roleOf(t.name) == ir::TensorRole::Input && target_.kind == target::Kind::Cpu && !emulate_ &&
            target_.misalignedLoadsCost() &&
            t.elementCount() * ir::bytes(t.dtype) <= kAlignedCopyBytes &&
            analysis::estimatedReadsPerElement(program_.program, t.name) >= kAlignedCopyReads)
          aligned_->insert(t.name);
    }
    return *aligned_;
  }

  // CUDA: runs on device pointers (one per parameter) on `stream` (a
  // CUstream; 0: the default stream), without copies.
  void runOnDevice(const std::vector<uintptr_t>& pointers, uintptr_t stream) {
    if (target_.kind != target::Kind::Cuda) throw UsageError("device pointers need a transform for target \"cuda\"");
    if (emulate_) throw UsageError("the emulator runs on host arrays (NumPy), not on GPU memory");
    runKernelOnDevice(kernel(), pointers, stream);
  }

  // Runs on one buffer per parameter (checked by the Python layer).
  void run(const std::vector<py::array>& arrays, int threads) {
    if (emulate_) return emulateOn(program_.program, target_, jit_, arrays);
    const backend::Kernel& k = kernel();
    std::vector<void*> ptrs;
    for (auto& a : arrays) ptrs.push_back(const_cast<void*>(a.data()));
    py::gil_scoped_release unlocked;
    k.run(ptrs, threads);
  }

 private:
  const backend::Kernel& kernel() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!kernel_) {
      py::gil_scoped_release unlocked;  // the C compiler may take a while
      kernel_ = probes_ ? backend::sizeGenericKernelFor(program_.program, target_, probes_, jit_)
                        : backend::buildFor(program_.program, target_, jit_);
    }
    return *kernel_;
  }

 public:
  // The entry's C at other sizes, given its C at these (pipeline/size_probes.hpp).
  std::function<std::vector<std::string>(const std::string&)> probes_;

 private:
  freeform::FreeformProgram program_;
  target::Target target_;
  runtime::JitOptions jit_;
  bool emulate_ = false;
  std::unique_ptr<backend::Kernel> kernel_;
  std::optional<std::set<std::string>> written_, aligned_;
  std::mutex mutex_;
  static constexpr int64_t kAlignedCopyBytes = int64_t(1) << 20;  // within a core's L2 (512 KiB on Zen 2) or two
  static constexpr double kAlignedCopyReads = 8;
};

freeform::FreeformOptions freeformOptions(const std::string& entry, const std::map<std::string, int64_t>& sizes,
                                          const std::map<std::string, std::vector<int64_t>>& inputShapes,
                                          bool checkIndices, bool applySchedules, bool autoSchedule,
                                          const target::Target& target = pythonTarget()) {
  freeform::FreeformOptions o;
  o.entry = entry;
  o.sizes = sizes;
  o.inputShapes = inputShapes;
  o.checkIndices = checkIndices;
  o.commandLine = false;
  o.applySchedules = applySchedules;
  o.autoSchedule = autoSchedule;
  o.target = target;
  return o;
}

runtime::JitOptions jitOptions(const std::string& cacheDir) {
  runtime::JitOptions jit;
  jit.cacheDir = cacheDir;
  return jit;
}

// Kernels that serve every shape (docs/python.md, "New shapes"): on the CPU,
// for programs with sizes from their inputs, unless TEML_SIZE_GENERIC=0.
bool sizeGeneric(const target::Target& t, bool emulate, const std::map<std::string, int64_t>& inputSizes) {
  const char* generic = std::getenv("TEML_SIZE_GENERIC");
  return t.kind == target::Kind::Cpu && !emulate && !inputSizes.empty() && !(generic && std::string(generic) == "0");
}

double secondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

std::shared_ptr<Compiled> compileFreeform(const std::string& source, const std::string& entry,
                                          const std::map<std::string, int64_t>& sizes,
                                          const std::map<std::string, std::vector<int64_t>>& inputShapes,
                                          bool checkIndices, bool applySchedules, const std::string& cacheDir,
                                          bool autoSchedule, const std::string& targetName, bool emulate) {
  target::Target t = targetNamed(targetName);
  if (emulate && t.kind != target::Kind::Cuda) throw UsageError("emulate=True runs a GPU program: give target=\"cuda\"");
  auto o = freeformOptions(entry, sizes, inputShapes, checkIndices, applySchedules, autoSchedule, t);
  // The analysis's answers kept on disk, as the command line keeps them: a
  // new process (a new Python session) asks isl nothing it asked before.
  o.analysisCacheDir = driver::analysisCacheDirectory(cacheDir);
  auto start = std::chrono::steady_clock::now();
  freeform::FreeformProgram program = pipeline::compileFreeform(source, o);
  double seconds = secondsSince(start);
  std::map<std::string, int64_t> inputSizes = program.inputSizes;
  auto compiled = std::make_shared<Compiled>(std::move(program), jitOptions(cacheDir), t, emulate);
  if (sizeGeneric(t, emulate, inputSizes))
    compiled->probes_ = [source, o, inputSizes, t, seconds](const std::string& base) {
      auto emit = [&t, &o](const ir::Program& p) {
        return codegen::emitC(lowering::lower(p, t, o.analysisCacheDir), t);
      };
      return pipeline::sizeProbes(source, o, inputSizes, emit, base, seconds);
    };
  return compiled;
}

// A free-form entry and its gradient program (autodiff/), split into the
// forward pass (the entry, filling its tapes) and the backward pass: two
// kernels over the same buffers, one per tensor of the gradient program.
class CompiledGradient {
 public:
  CompiledGradient(const freeform::FreeformProgram& p, const std::vector<std::string>& wrt,
                   const std::vector<std::string>& of, const std::string& tapes, runtime::JitOptions jit,
                   target::Target target, bool emulate)
      : jit_(std::move(jit)), target_(std::move(target)), emulate_(emulate) {
    autodiff::GradientProgram g = differentiated(p.program, wrt, of, tapes, target_, jit_.cacheDir);
    std::tie(forward_, backward_) = passes(g.program);
    for (auto& t : g.program.tensors)
      params_.push_back(
          py::make_tuple(t.name, freeform::dtypeText(t.dtype), t.shape, ir::roleName(g.program.roleOf(t.name))));
    for (auto& [tensor, choice] : g.tapes) tapes_.push_back(tensor + ": " + choice.why);
    tapes_.insert(tapes_.end(), g.versions.begin(), g.versions.end());
    gradientOf_ = g.gradientOf;
  }

  // (name, dtype, shape, role): ir::roleName of the tensor's role. The
  // backward pass zeroes "gradient" and "adjoint" tensors and fills
  // "weights"; every other tensor keeps what the forward pass left.
  std::vector<py::tuple> params() const { return params_; }
  // Each tensor with a gradient -> the tensor that holds it.
  std::map<std::string, std::string> gradientOf() const { return gradientOf_; }
  std::vector<std::string> tapes() const { return tapes_; }
  std::string ir() const { return ir::toString(forward_, true) + ir::toString(backward_, true); }

  void run(const std::string& pass, const std::vector<py::array>& arrays, int threads) {
    if (emulate_) return emulateOn(pass == "forward" ? forward_ : backward_, target_, jit_, arrays);
    const backend::Kernel& k = kernel(pass);
    std::vector<void*> ptrs;
    for (auto& a : arrays) ptrs.push_back(const_cast<void*>(a.data()));
    py::gil_scoped_release unlocked;
    k.run(ptrs, threads);
  }
  // CUDA: the pass on device pointers (one per tensor of params()) on `stream`.
  void runDevice(const std::string& pass, const std::vector<uintptr_t>& pointers, uintptr_t stream) {
    if (target_.kind != target::Kind::Cuda) throw UsageError("device pointers need a gradient for target \"cuda\"");
    if (emulate_) throw UsageError("the emulator runs on host arrays (NumPy), not on GPU memory");
    runKernelOnDevice(kernel(pass), pointers, stream);
  }
  std::string targetName() const { return target::kindName(target_.kind); }

  // Differentiated and scheduled as `teml grad` does it, its dependence
  // answers kept beside the kernel cache as the command line keeps them.
  static autodiff::GradientProgram differentiated(const ir::Program& p, const std::vector<std::string>& wrt,
                                                  const std::vector<std::string>& of, const std::string& tapes,
                                                  const target::Target& target, const std::string& cacheDir) {
    return driver::differentiate(p, {wrt, of, autodiff::tapeModeNamed(tapes)}, target, true,
                                 driver::analysisCacheDirectory(cacheDir))
        .gradient;
  }
  // A gradient program's forward pass (filling tapes and saved values) and backward pass.
  static std::pair<ir::Program, ir::Program> passes(const ir::Program& g) {
    size_t backwardStart = g.backwardStart.value();
    if (backwardStart > g.nests.size()) throw InternalError("a gradient program's backward start is past its nests");
    std::pair<ir::Program, ir::Program> out{g, g};
    out.first.nests.resize(backwardStart);
    out.second.nests.erase(out.second.nests.begin(), out.second.nests.begin() + static_cast<long>(backwardStart));
    return out;
  }
  static constexpr const char* kPassBreak = "\n/* the backward pass */\n";

  // Both passes' C at other sizes (each probe: forward, kPassBreak,
  // backward), given both at these (pipeline/size_probes.hpp).
  std::function<std::vector<std::string>(const std::string&)> probes_;

 private:
  // The first call of either pass compiles both at once, the backward pass
  // on a thread of its own (a second C compiler: a gradient's first call
  // waits for the longer of the two compiles, not for their sum).
  const backend::Kernel& kernel(const std::string& pass) {
    py::gil_scoped_release unlocked;  // the compiler may take a while; before the lock, which another caller may hold
    std::lock_guard<std::mutex> lock(mutex_);
    if (!backwardKernel_ && !backwardBuilding_.valid()) {
      if (probes_) probesOf("backward");  // made once for both passes, before the two compiles read them
      backwardBuilding_ = std::async(std::launch::async, [this] { return build("backward"); });
    }
    if (pass == "forward" && !forwardKernel_) forwardKernel_ = build("forward");
    if (pass != "forward" && !backwardKernel_) backwardKernel_ = backwardBuilding_.get();
    return pass == "forward" ? *forwardKernel_ : *backwardKernel_;
  }
  std::unique_ptr<backend::Kernel> build(const std::string& pass) {
    const ir::Program& program = pass == "forward" ? forward_ : backward_;
    auto probes = [this, pass](const std::string&) { return probesOf(pass); };
    return probes_ ? backend::sizeGenericKernelFor(program, target_, probes, jit_) : backend::buildFor(program, target_, jit_);
  }
  // One pass's part of the probes, made once for both.
  std::vector<std::string> probesOf(const std::string& pass) {
    if (!probed_) {
      auto both = [&](const ir::Program& p) {
        return codegen::emitC(lowering::lower(p, target_, cache::analysisDirectory(jit_.cacheDir)), target_);
      };
      probed_ = probes_(both(forward_) + kPassBreak + both(backward_));
    }
    std::vector<std::string> out;
    for (auto& c : *probed_) {
      size_t at = c.find(kPassBreak);
      if (at != std::string::npos) out.push_back(pass == "forward" ? c.substr(0, at) : c.substr(at + std::strlen(kPassBreak)));
    }
    return out;
  }
  std::optional<std::vector<std::string>> probed_;

  ir::Program forward_, backward_;
  std::vector<py::tuple> params_;
  std::vector<std::string> tapes_;
  std::map<std::string, std::string> gradientOf_;
  runtime::JitOptions jit_;
  target::Target target_;
  bool emulate_ = false;
  std::unique_ptr<backend::Kernel> forwardKernel_, backwardKernel_;
  std::mutex mutex_;
  // Last: destroyed first, waiting for the compile that reads the members above.
  std::future<std::unique_ptr<backend::Kernel>> backwardBuilding_;
};

// The entry as written (no schedule), differentiated.
std::shared_ptr<CompiledGradient> compileGradient(const std::string& source, const std::string& entry,
                                                  const std::map<std::string, int64_t>& sizes,
                                                  const std::map<std::string, std::vector<int64_t>>& inputShapes,
                                                  bool checkIndices, const std::vector<std::string>& wrt,
                                                  const std::vector<std::string>& of, const std::string& tapes,
                                                  const std::string& cacheDir, const std::string& targetName,
                                                  bool emulate) {
  target::Target t = targetNamed(targetName);
  if (emulate && t.kind != target::Kind::Cuda) throw UsageError("emulate=True runs a GPU program: give target=\"cuda\"");
  auto o = freeformOptions(entry, sizes, inputShapes, checkIndices, false, false, t);
  auto start = std::chrono::steady_clock::now();
  freeform::FreeformProgram program = pipeline::compileFreeform(source, o);
  auto compiled = std::make_shared<CompiledGradient>(program, wrt, of, tapes, jitOptions(cacheDir), t, emulate);
  double seconds = secondsSince(start);
  if (sizeGeneric(t, emulate, program.inputSizes))
    compiled->probes_ = [source, o, inputSizes = program.inputSizes, t, seconds, wrt, of, tapes,
                         cacheDir](const std::string& base) {
      auto emit = [&](const ir::Program& p) {
        auto [forward, backward] =
            CompiledGradient::passes(CompiledGradient::differentiated(p, wrt, of, tapes, t, cacheDir).program);
        std::string analysis = cache::analysisDirectory(cacheDir);
        return codegen::emitC(lowering::lower(forward, t, analysis), t) + CompiledGradient::kPassBreak +
               codegen::emitC(lowering::lower(backward, t, analysis), t);
      };
      return pipeline::sizeProbes(source, o, inputSizes, emit, base, seconds);
    };
  return compiled;
}

// A .teml, .teil or .til program compiled by the driver, as `teml run` does.
class LoadedProgram {
 public:
  LoadedProgram(const std::string& path, const std::map<std::string, int64_t>& sizes, const std::string& cacheDir) {
    driver::Options o;
    o.programPath = path;
    o.sizes = driver::withTargetSizes(sizes, pythonTarget());
    o.jit.cacheDir = cacheDir;
    compiled_ = driver::compile(o);
    jit_ = o.jit;
  }

  // (name, dtype, shape, role, initial value): role is "input" (no nest
  // writes it), "output", or "temporary" (a front end's own tensor).
  std::vector<py::tuple> params() const {
    std::vector<py::tuple> out;
    const ir::Program& p = compiled_.program;
    for (auto& t : p.tensors) {
      std::string role = p.isTemporary(t.name) ? "temporary" : ir::roleName(p.roleOf(t.name));
      auto init = p.initialValues.find(t.name);
      out.push_back(py::make_tuple(t.name, freeform::dtypeText(t.dtype), t.shape, role,
                                   init == p.initialValues.end() ? 0.0 : init->second));
    }
    return out;
  }
  std::string ir() const { return ir::toString(compiled_.program, true); }
  std::string loweredIr() const { return ir::toString(compiled_.lowered, true); }
  std::string cSource() const { return backend::emitFor(compiled_.program, pythonTarget()); }

  void run(const std::vector<py::array>& arrays, int threads) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!kernel_) {
        py::gil_scoped_release unlocked;
        kernel_ = backend::buildFor(compiled_.program, pythonTarget(), jit_);
      }
    }
    std::vector<void*> ptrs;
    for (auto& a : arrays) ptrs.push_back(const_cast<void*>(a.data()));
    py::gil_scoped_release unlocked;
    kernel_->run(ptrs, threads);
  }

 private:
  driver::Compiled compiled_;
  runtime::JitOptions jit_;
  std::unique_ptr<backend::Kernel> kernel_;
  std::mutex mutex_;
};

// Each schedule primitive a free-form schedule has, by its spelling: the
// fewest and most arguments, the loops it hands back, its usage (the methods
// of teml.Schedule).
py::dict schedulePrimitives() {
  py::dict out;
  for (auto& p : schedule::primitives()) {
    if (p.freeform.empty() || out.contains(p.freeform)) continue;
    out[py::str(p.freeform)] = py::make_tuple(p.params.size() - p.optional, p.params.size(), p.handles, p.freeformUsage);
  }
  return out;
}

}  // namespace

PYBIND11_MODULE(_teml, m) {
  m.doc() = "teml's compiler: the free-form front end and the JIT (use the teml package, not this module)";
  // At import, so that PyTorch imported after teml reads it too.
  teml::runtime::preferShortSpinWaits();
  // A wrong program becomes teml.ProgramError (file, line, column, message), a
  // wrong input a ValueError, a bug in teml a RuntimeError saying so.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const UserError& e) {
      py::object cls = py::module_::import("teml._errors").attr("ProgramError");
      py::object err = cls(e.loc().line, e.loc().col, std::string(e.what()));
      PyErr_SetObject(cls.ptr(), err.ptr());
    } catch (const UsageError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const UnavailableError& e) {
      py::object cls = py::module_::import("teml._errors").attr("DeviceUnavailable");
      PyErr_SetString(cls.ptr(), e.what());
    } catch (const InternalError& e) {
      PyErr_SetString(PyExc_RuntimeError, (std::string("internal error (a bug in teml): ") + e.what()).c_str());
    }
  });
  py::class_<Compiled, std::shared_ptr<Compiled>>(m, "Compiled")
      .def("params", &Compiled::params)
      .def("ir", &Compiled::ir)
      .def("lowered_ir", &Compiled::loweredIr)
      .def("c_source", &Compiled::cSource)
      .def("target", &Compiled::targetName)
      .def("written_before_read", &Compiled::writtenBeforeRead)
      .def("aligned_copies", &Compiled::alignedCopies)
      .def("run", &Compiled::run, py::arg("arrays"), py::arg("threads"))
      .def("run_device", &Compiled::runOnDevice, py::arg("pointers"), py::arg("stream"));
  py::class_<LoadedProgram, std::shared_ptr<LoadedProgram>>(m, "LoadedProgram")
      .def(py::init<const std::string&, const std::map<std::string, int64_t>&, const std::string&>(), py::arg("path"),
           py::arg("sizes"), py::arg("cache_dir") = "")
      .def("params", &LoadedProgram::params)
      .def("ir", &LoadedProgram::ir)
      .def("lowered_ir", &LoadedProgram::loweredIr)
      .def("c_source", &LoadedProgram::cSource)
      .def("run", &LoadedProgram::run, py::arg("arrays"), py::arg("threads"));
  py::class_<CompiledGradient, std::shared_ptr<CompiledGradient>>(m, "CompiledGradient")
      .def("params", &CompiledGradient::params)
      .def("tapes", &CompiledGradient::tapes)
      .def("gradient_of", &CompiledGradient::gradientOf)
      .def("ir", &CompiledGradient::ir)
      .def("target", &CompiledGradient::targetName)
      .def("run", &CompiledGradient::run, py::arg("pass_"), py::arg("arrays"), py::arg("threads"))
      .def("run_device", &CompiledGradient::runDevice, py::arg("pass_"), py::arg("pointers"), py::arg("stream"));
  m.def("compile_gradient", &compileGradient, py::arg("source"), py::arg("entry"), py::arg("sizes"),
        py::arg("input_shapes"), py::arg("check_indices"), py::arg("wrt"), py::arg("of"), py::arg("tapes"),
        py::arg("cache_dir") = "", py::arg("target") = "cpu", py::arg("emulate") = false);
  m.def("schedule_primitives", &schedulePrimitives);
  m.def("compile_freeform", &compileFreeform, py::arg("source"), py::arg("entry"), py::arg("sizes"),
        py::arg("input_shapes"), py::arg("check_indices") = true, py::arg("apply_schedules") = true,
        py::arg("cache_dir") = "", py::arg("auto_schedule") = true, py::arg("target") = "cpu",
        py::arg("emulate") = false);
}
