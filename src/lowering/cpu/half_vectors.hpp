// Whether an explicit vector loop runs on half-width vectors (32 bytes on an
// AVX-512 target). A loop that streams through memory, doing fewer than two
// arithmetic operations per vector it loads or stores, is bound by the
// memory system, not by its lanes; where its whole run is one 64-byte vector
// of a row that starts off a cache line's edge (scatter-add's rows of 16
// floats, NumPy's arrays starting 16 bytes past a boundary), each full
// vector touches a line no other access shares, and two 32-byte halves were
// 2-6% faster (AMD EPYC Zen 4, the generated kernels in C, in turns).
// Longer runs read their lines in order, so the line a vector crosses into
// is the next vector's anyway: there the full width was 6-15% faster on the
// same machine (A^T x, column sums, a 5-point stencil; layer norm even),
// where an earlier session's machine had measured the opposite. Where every
// access is on a boundary once the tensors' bases are, the choice waits for
// the call's addresses. Loops that reuse what they load (register blocks of
// matmul and convolutions), read through indices from data (gathers:
// embedding bag and SpMM lost 10-13%), or find their data in the caches keep
// the full width.
#pragma once
#include "ir/program.hpp"

namespace teml::lowering {

struct HalfWidthChoice {
  ir::HalfWidth when = ir::HalfWidth::Never;
  std::vector<std::string> alignmentTested;  // WhereMisaligned: the tensors whose bases decide
};

// `around`: the loops around `loop` in its nest, innermost last; a tensor
// streams where an access moves with every one of them (otherwise some loop
// around runs the loop again over elements the caches hold). `program`
// declares every tensor the loop reaches (the nest's own too);
// `vectorBytes`: the target's.
HalfWidthChoice halfWidthOf(const ir::For& loop, const std::vector<const ir::For*>& around,
                            const ir::Program& program, int vectorBytes);

}  // namespace teml::lowering
