// Copy nests: a perfect nest of plain loops around one copy dst[...] =
// src[...]. The lowering stage (lowering/copy_plans) decides with these how
// one is written, and the C emitter prints what was decided with them.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "ir/stmt.hpp"

namespace teml::analysis {

// The declaration of a tensor in scope (a loop-local one stores its box,
// lowering/local_boxes); null for an unknown name.
using DeclOf = std::function<const ir::TensorDecl*(const std::string&)>;

// At least two plain loops around one copy between two tensors of one
// floating element type: the copy, with the loops outermost first; null
// otherwise.
const ir::Store* copyNest(const ir::For& f, const DeclOf& storage, std::vector<const ir::For*>* loops);

// The first element of the block `tensor[idx]` covers over `loops`, when the
// block is contiguous in the tensor's storage; false otherwise.
bool contiguousBlock(const std::string& tensor, const std::vector<ir::ExprP>& idx,
                     const std::vector<const ir::For*>& loops, const DeclOf& storage, std::vector<ir::ExprP>* first);

// The loops of a copy nest whose iterations write distinct elements, in the
// destination's order (largest stride outermost) with neighbours that step
// through both tensors as one merged; false when the nest is not such a
// copy, or when gathering `width`-element vectors is not worth it (the
// innermost loop must write whole vectors of the destination).
bool gatheredOrder(const ir::Store& copy, const std::vector<const ir::For*>& loops, const DeclOf& storage,
                   int width, std::vector<ir::CopyLoop>* merged);

}  // namespace teml::analysis
