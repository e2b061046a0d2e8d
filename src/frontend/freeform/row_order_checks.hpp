// Loops over the entries of a CSR row (`for k in range(ptr[i], ptr[i + 1])`
// in a loop over i) assume that the rows do not overlap: ptr does not
// decrease. Each such loop checks its row first at run time (ir/csr_rows:
// ptr[i] <= ptr[i + 1], one comparison a row), so the dependence analysis
// may rely on it: writes indexed by the entry in different rows never meet.
#pragma once
#include <vector>

#include "ir/stmt.hpp"
#include "ir/tensor_decl.hpp"

namespace teml::freeform {

ir::StmtP withRowOrderChecks(const ir::StmtP& nest, const std::vector<ir::TensorDecl>& tensors);

}  // namespace teml::freeform
