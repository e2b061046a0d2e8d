// Where each tensor defined inside a nest lives (TensorDecl::mem): on the
// stack up to 128 KiB, else on the heap (64-byte aligned). Accumulators the
// lowering stage made are already in registers or on the stack. TeML's
// loop-local tensors keep Auto: the emitter stores their boxes.
#pragma once
#include "ir/stmt.hpp"

namespace teml::lowering {

constexpr int64_t kMaxStackBytes = 128 * 1024;

ir::StmtP chooseMemoryKinds(const ir::StmtP& nest);

}  // namespace teml::lowering
