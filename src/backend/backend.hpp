// One interface for "emit, compile, load, call" per target: the driver, the
// operator API and the Python package go through it, so a second back end
// (a GPU's) is a second implementation, not a change to the first. A back
// end takes a program lowered for its target (lowering::lower) and decides
// nothing the lowered IR does not say.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/program.hpp"
#include "diag/diagnostics.hpp"
#include "runtime/cuda_driver.hpp"
#include "runtime/jit.hpp"
#include "target/target.hpp"

namespace teml::backend {

// A loaded kernel: one buffer per program tensor, in declaration order.
class Kernel {
 public:
  virtual ~Kernel() = default;
  // On `threads` threads (0: the target's). A failed run-time check
  // (ir::Assert) throws UserError at its location.
  virtual void run(std::vector<void*>& buffers, int threads = 0) const = 0;
  // Seconds of each of `runs` runs over the same buffers, for `teml bench`:
  // null where the caller times run() itself (the CPU); a GPU leaves the
  // data on the device between runs and times them with its events.
  virtual std::optional<std::vector<double>> timeRuns(std::vector<void*>& buffers, int runs) const {
    (void)buffers;
    (void)runs;
    return std::nullopt;
  }
  // On buffers already in a GPU's memory (one device pointer per program
  // tensor), on `stream` (a CUstream; null: the default stream), without
  // copies: a GPU kernel's entry; the others refuse.
  virtual void runOnDevice(const std::vector<runtime::DevicePtr>& buffers, void* stream) const {
    (void)buffers;
    (void)stream;
    throw UsageError("device pointers need a kernel for the cuda target");
  }
  virtual bool compiledNow() const = 0;  // false: taken from the kernel cache
  // An object the kernel defines (the MPI exchanges' byte counters); null where it has none.
  virtual void* symbol(const std::string& name) const {
    (void)name;
    return nullptr;
  }
  virtual const std::vector<std::string>& notes() const = 0;     // for -v
  virtual const std::vector<std::string>& warnings() const = 0;  // for the user
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string emit(const ir::Program& lowered) const = 0;  // the source text
  virtual std::unique_ptr<Kernel> build(const ir::Program& lowered, const runtime::JitOptions& jit) const = 0;
};

// The back end registered for the target's kind (backend/registry.cpp).
std::unique_ptr<Backend> backendFor(const target::Target& target);

// A scheduled program lowered for `target` and printed or built by its back end.
std::string emitFor(const ir::Program& scheduled, const target::Target& target);
std::unique_ptr<Kernel> buildFor(const ir::Program& scheduled, const target::Target& target,
                                 const runtime::JitOptions& jit);

}  // namespace teml::backend
