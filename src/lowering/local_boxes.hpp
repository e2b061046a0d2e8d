// The box each of TeML's loop-local tensors stores (LoopLocal::box): the
// elements one iteration of its loop touches, from analysis/local_box.hpp.
// Emitters allocate the box and index it from its corner.
#pragma once
#include "ir/stmt.hpp"

namespace teml::lowering {

ir::StmtP inferLocalBoxes(const ir::StmtP& nest);

}  // namespace teml::lowering
