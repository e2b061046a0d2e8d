// The CPU back end: C with OpenMP, compiled by the system C compiler and
// loaded with dlopen. Registered for target::Kind::Cpu (backend/registry).
#pragma once
#include "backend/backend.hpp"

namespace teml::backend {

std::unique_ptr<Backend> makeCpuBackend(const target::Target& target);

}  // namespace teml::backend
