// Marks the serial loops whose iterations depend on each other by more than
// reductions (LoopKind::carriesDependence). GCC 12 at -O3 -march=native has
// been seen to vectorize such a loop anyway (an outer loop, after unrolling
// the inner one: a[i+2][j+2] = a[i+1][j+1] + ...) and compute wrong
// results; the C emitter puts a compiler barrier in each iteration of a
// marked loop. Loops that carry only reductions stay unmarked: a barrier
// would keep the reduced values from staying in registers (2.5x slower
// contractions).
#pragma once
#include "ir/stmt.hpp"

namespace teml::lowering {

ir::StmtP markCarriedDependences(const ir::StmtP& nest);

}  // namespace teml::lowering
