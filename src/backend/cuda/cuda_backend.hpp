// The CUDA back end: CUDA C (codegen::emitCuda), compiled to a cubin by
// nvcc (or NVRTC) and run through the driver API (runtime/cuda_driver).
// Registered for target::Kind::Cuda (backend/registry).
#pragma once
#include "backend/backend.hpp"

namespace teml::backend {

std::unique_ptr<Backend> makeCudaBackend(const target::Target& target);

}  // namespace teml::backend
