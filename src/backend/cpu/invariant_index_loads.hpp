// Index loads that a SIMD loop does not change, read once before it.
// GCC 12 leaves `#pragma omp simd` loops scalar when a subscript loads from
// memory, even a load that is the same in every iteration (V[col[k]][f] in a
// loop over f: SDDMM's dot products, 64 scalar FMAs each); with the index in
// a local (V[c][f]) the same loop is vectorized.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "ir/stmt.hpp"

namespace teml::codegen {

struct HoistedIndexLoad {
  std::string var;  // the iterator-like name that replaces it in the loop
  ir::ExprP load;
};

// The loads inside subscripts of f's unconditional statements whose indices
// use no iterator of f and read no tensor f writes: each is replaced by a
// fresh variable (`freshVar`), returned in `hoisted`; the loop with them
// replaced is returned (f itself when none).
ir::StmtP hoistInvariantIndexLoads(const ir::For& f, const std::function<std::string()>& freshVar,
                                   std::vector<HoistedIndexLoad>& hoisted);

}  // namespace teml::codegen
