// Kernels that serve every shape of their inputs (runtime/size_generic_source.hpp):
// one compiled kernel per generic source, shared in this process by every
// program whose C is an instance of it; the JIT's cache keeps the compiled
// kernel for later processes (its C is the same at every size).
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backend/backend.hpp"

namespace teml::backend {

// A kernel that runs `source` (C from codegen::emitC): an instance of a
// generic kernel built earlier in this process, else one built now from
// `source`, `probes()` (the same program's C at other sizes, asked for only
// then) and the sources of the same key compiled as they were before. Null
// where no numeral of `source` varies in those, or the generic C does not
// compile: the caller then compiles `source` as it is.
std::unique_ptr<Kernel> sizeGenericKernel(const std::string& source,
                                          const std::function<std::vector<std::string>()>& probes,
                                          const runtime::JitOptions& jit, const std::vector<std::string>& libraries,
                                          int threads);

// The kernel of a scheduled program for `target` (the CPU): the same for its
// C (lowered and emitted here; `probes` gets that C), else that C compiled
// as it is.
std::unique_ptr<Kernel> sizeGenericKernelFor(const ir::Program& scheduled, const target::Target& target,
                                             const std::function<std::vector<std::string>(const std::string&)>& probes,
                                             const runtime::JitOptions& jit);

}  // namespace teml::backend
