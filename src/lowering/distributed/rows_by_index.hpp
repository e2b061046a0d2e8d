// The tensors a distributed program reads only through CSR loops of its
// distributed steps (the columns and values of a sparse matrix, read as
// `col[p]` for p in range(ptr[i], ptr[i + 1])): isl cannot bound the rows
// a rank reads, the data can, so each rank keeps only the rows of its
// block's range of `ptr` (ir::RowsByIndex, docs/distributed.md).
#pragma once
#include "ir/program.hpp"

namespace teml::lowering {

// `planned`'s distribution.rowsByIndex filled in (its loops already listed).
void findRowsByIndex(ir::Program& planned);

}  // namespace teml::lowering
