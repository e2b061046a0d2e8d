// How each loop in SIMD lanes is written (ir::VectorPlan), for the target's
// vector width. Explicit vectors (GCC vector extensions) instead of
// `#pragma omp simd` where every access is invariant in the loop's iterator
// or unit-stride in its last dimension, values are + - * / of loads and
// constants of one floating type, no reduction is atomic, the trip count is
// a constant of at least one vector, and the loop runs in lanes only (no
// threads, no reduction clause, no local tensors in or below it).
#pragma once
#include "ir/program.hpp"
#include "target/target.hpp"

namespace teml::lowering {

// `program` gives the element types and shapes of its tensors.
ir::StmtP planVectorLoops(const ir::StmtP& nest, const ir::Program& program, const target::Target& target);

}  // namespace teml::lowering
