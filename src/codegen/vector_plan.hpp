// Whether a vectorized loop can be emitted with explicit vector types (GCC
// vector extensions) instead of relying on `#pragma omp simd`: every access
// must be invariant in the loop's iterator or unit-stride in its last
// dimension, no reduction atomic, values must be + - * / of loads and constants of one element
// type, and the trip count must be a constant.
#pragma once
#include <set>
#include <string>

#include "ir/program.hpp"
#include "target/target.hpp"

namespace teml::codegen {

struct VectorPlan {
  bool ok = false;
  ir::DType dtype = ir::DType::F64;
  int width = 0;      // elements per vector (the target's vectorBytes)
  int64_t span = 0;   // iterations of the loop
};

// `program` gives element types and shapes; tensors named in `locals` are
// stored as boxes whose shapes the planner does not know.
VectorPlan planVectorLoop(const ir::For& loop, const ir::Program& program, const target::Target& target,
                          const std::set<std::string>& locals = {});

// The last two indices are X / n and X mod n over a last dimension of extent
// n (what merging two loops produces): together they address element X of
// the last two dimensions taken as one.
bool mergedPair(const std::vector<ir::ExprP>& indices, int64_t lastExtent, ir::ExprP* x);

// Does the access vary with `var` (unit stride in its last dimension)?
bool variesWith(const std::vector<ir::ExprP>& indices, const std::string& var);

}  // namespace teml::codegen
