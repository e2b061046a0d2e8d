// Where each tensor defined inside a nest lives (TensorDecl::mem): on the
// stack up to 128 KiB (of its box, for a loop-local tensor), else on the
// heap (64-byte aligned). Accumulators the lowering stage made are already
// in registers or on the stack.
#pragma once
#include "ir/stmt.hpp"

namespace teml::lowering {

constexpr int64_t kMaxStackBytes = 128 * 1024;
// Outputs at least this large (twice a 32 MiB last-level cache) that
// nothing else in the nest reads are written with non-temporal stores
// (vector_plans, copy_plans): that saves reading each line from memory
// before overwriting it.
constexpr int64_t kStreamingBytes = 64 * 1024 * 1024;

ir::StmtP chooseMemoryKinds(const ir::StmtP& nest);

}  // namespace teml::lowering
