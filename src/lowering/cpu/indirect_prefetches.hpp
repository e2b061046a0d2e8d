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
//
// 32 iterations: GAT's edges (two lines of h each, about 20 ns of work)
// took 26.5 ms on one thread with 4, 21 with 8, 18 with 16, 17.5 with 32
// or 64, and 14.1 -> 10.3 ms on two with 16, the same with 32; an
// embedding bag of 32 rows of four lines (whose prefetches run on into the
// next bag) 0.75 ms with 16, 0.58 with 32 (one bag ahead), 0.68 with 24,
// 0.82 with 48 or 64; SpMM and SDDMM 4-10% faster with 32 than 16 (AMD
// EPYC, AVX-512, interleaved runs). Not for tensors small enough to stay in
// cache (kCachedBytes).
#pragma once
#include "ir/program.hpp"

namespace teml::lowering {

constexpr int64_t kPrefetchAhead = 32;

ir::StmtP addIndirectPrefetches(const ir::StmtP& nest, const ir::Program& program);

}  // namespace teml::lowering
