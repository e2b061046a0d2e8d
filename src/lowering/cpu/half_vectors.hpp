// Whether an explicit vector loop runs on half-width vectors (32 bytes on an
// AVX-512 target). A loop that streams through memory, doing fewer than two
// arithmetic operations per vector it loads or stores, is bound by the
// memory system, not by its lanes, and there 64-byte accesses that start off
// a cache line's edge touch two lines each; 32-byte ones half as often.
// Measured on an AMD EPYC with 512-bit units (its one-thread float32 matmul
// ran at 180 GFLOP/s, past 256-bit units' peak), same run, bench/ops from
// Python: A^T x (rows of 3000 floats) 546 -> 437 us, a 5-point stencil (x[i][j + 1])
// 1704 -> 1027 us, both misaligned wherever the arrays start; sums of
// columns 2071 -> 1631 and scatter-add 1871 -> 1107 us, misaligned because
// NumPy's arrays start 16 bytes past a boundary. Where every access is on a
// boundary once the tensors' bases are, the choice waits for the call's
// addresses (Longformer's window rows from the `teml` command, whose buffers
// are aligned, lost 8% at half width). Loops that reuse what they load
// (register blocks of matmul and convolutions), read through indices from
// data (gathers: embedding bag and SpMM lost 10-13%), or find their data in
// the caches (attention's 128 KiB rows lost 40%; SubdivNet's output row, the
// same in every step of the loop around, 30%; the paper's bmm, whose rows of
// B serve every row of A, 2x; gconv's input rows, the same for every output
// channel, 1.3x) keep the full width. A core that runs 64-byte vectors as
// two 32-byte halves anyway (AMD Zen 4) keeps the full width everywhere:
// there a 64-byte load off a line's edge crosses it as often as the two
// 32-byte loads that would replace it, and the full width was 6-15% faster
// (A^T x, column sums, a 5-point stencil; layer norm even: the generated
// kernels in C, in turns, on arrays 16 bytes past a boundary).
#pragma once
#include "ir/program.hpp"
#include "target/target.hpp"

namespace teml::lowering {

struct HalfWidthChoice {
  ir::HalfWidth when = ir::HalfWidth::Never;
  std::vector<std::string> alignmentTested;  // WhereMisaligned: the tensors whose bases decide
};

// `around`: the loops around `loop` in its nest, innermost last; a tensor
// streams where an access moves with every one of them (otherwise some loop
// around runs the loop again over elements the caches hold). `program`
// declares every tensor the loop reaches (the nest's own too);
// Never on a target that halves wide vectors itself.
HalfWidthChoice halfWidthOf(const ir::For& loop, const std::vector<const ir::For*>& around,
                            const ir::Program& program, const target::Target& target);

}  // namespace teml::lowering
