// Each of TeML's loop-local tensors stores only its box: the elements one
// iteration of its loop touches (analysis/local_box.hpp). The pass records
// the box (LoopLocal::box), makes its extent the VarDef's shape and rewrites
// every access to count from the box's corner, so that after it a loop-local
// tensor is a scoped tensor like any other, indexed in its own coordinates.
// A local no access touches is dropped. For a cache's copy that prefetches,
// it also works out where its tensor is read `prefetchAhead` iterations later.
#pragma once
#include "ir/stmt.hpp"

namespace teml::lowering {

ir::StmtP storeLocalBoxes(const ir::StmtP& nest, const std::vector<ir::TensorDecl>& tensors);

}  // namespace teml::lowering
