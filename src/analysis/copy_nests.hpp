// Copy nests: a perfect nest of plain loops around one copy dst[...] =
// src[...]. The lowering stage (lowering/copy_plans) decides with these how
// one is written, and the C emitter prints what was decided with them.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "ir/stmt.hpp"

namespace teml::analysis {

// How a copy nest sees a tensor's storage: its declaration, and for a
// loop-local tensor in scope the box it stores (null: the whole tensor).
struct Storage {
  const ir::TensorDecl* decl = nullptr;
  const ir::Box* box = nullptr;
};
using StorageOf = std::function<Storage(const std::string&)>;

// At least two plain loops around one copy between two tensors of one
// floating element type: the copy, with the loops outermost first; null
// otherwise.
const ir::Store* copyNest(const ir::For& f, const StorageOf& storage, std::vector<const ir::For*>* loops);

// The first element of the block `tensor[idx]` covers over `loops`, when the
// block is contiguous in the tensor's storage; false otherwise.
bool contiguousBlock(const std::string& tensor, const std::vector<ir::ExprP>& idx,
                     const std::vector<const ir::For*>& loops, const StorageOf& storage, std::vector<ir::ExprP>* first);

// One loop of a gathered copy: its span and how far one step moves the
// source and the destination, in elements.
struct CopyLoop {
  std::string var;
  int64_t span, to, from;
};

// The loops of a copy nest whose iterations write distinct elements, in the
// destination's order (largest stride outermost) with neighbours that step
// through both tensors as one merged; false when the nest is not such a
// copy, or when gathering `width`-element vectors is not worth it (the
// innermost loop must write whole vectors of the destination).
bool gatheredOrder(const ir::Store& copy, const std::vector<const ir::For*>& loops, const StorageOf& storage,
                   int width, std::vector<CopyLoop>* merged);

}  // namespace teml::analysis
