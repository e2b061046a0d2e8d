// Prefetches for gathers and scatters through indices read from data
// (x[idx[p], e] in a loop over p: GAT's edges, SubdivNet's neighbours, the
// scatter-adds of their gradients). No hardware prefetcher can guess such
// addresses, and a loop over them waits on memory. A serial loop whose
// iterations touch such elements fetches, at the top of each iteration,
// those the iteration `kPrefetchAhead` later will touch: one address per
// cache line of the row an inner loop runs over (LoopKind::cpu.prefetches).
// Only where computing the address reads nothing out of bounds: the index
// tensor is not written in the loop, its subscripts read no data (idx[p],
// not idx[q[p]]), and no check inside the loop guards a subscript by the
// loop's iterator (the loop's range was checked before it runs, so every
// iteration's subscripts are in bounds).
#pragma once
#include "ir/stmt.hpp"

namespace teml::lowering {

constexpr int64_t kPrefetchAhead = 4;

ir::StmtP addIndirectPrefetches(const ir::StmtP& nest);

}  // namespace teml::lowering
