#include "backend/cuda/cuda_host_interface.hpp"

#include <string>

#include "diag/diagnostics.hpp"
#include "ir/stmt.hpp"

namespace teml::backend {

int HostFailures::failed(int line, int col, const char* message, long value) {
  error_ = std::make_exception_ptr(UserError(SourceLoc{line, col}, ir::assertionMessage(message, value)));
  return 1;
}

void HostFailures::rethrow(const char* runner) const {
  if (error_) std::rethrow_exception(error_);
  throw InternalError(std::string(runner) + ": the host code failed and said nothing");
}

}  // namespace teml::backend
