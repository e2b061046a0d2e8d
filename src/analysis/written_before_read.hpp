// Tensors whose every element the program stores before any statement reads
// or updates it (softmax's `y[i, j] = exp(...)`, read afterwards in the same
// row): their starting values are never seen, so a caller that reuses an
// output array need not zero it first (python/teml: `out=`).
//
// Shown conservatively: the first statement that touches the tensor is a
// store, outside every branch, whose subscripts are the iterators of loops
// over the tensor's whole extents (from 0, step 1; every loop around it with
// constant bounds and at least one iteration), and whose value does not read
// the tensor. Every later read or update of an element then either lies
// outside the loops that move the store's subscript in some dimension (they
// have finished) or uses, in that dimension, the same iterator. Anything
// else (split loops, branches, computed subscripts) leaves the tensor out.
#pragma once
#include <set>
#include <string>

#include "ir/program.hpp"

namespace teml::analysis {

std::set<std::string> writtenBeforeRead(const ir::Program& p);
// The same for the tensors the nests define outside their loops (VarDefs
// that are not loop-local, each name defined once), within their scopes.
std::set<std::string> temporariesWrittenBeforeRead(const ir::Program& p);

}  // namespace teml::analysis
