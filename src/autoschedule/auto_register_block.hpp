// Register blocks for contractions, what teml's hand schedule of mm does
// (examples/mm/best.teml) and FreeTensor's heuristics do not: a perfect nest
// that sums into an output element (T[..][i][j] += ... over k) gets its
// column loop j in SIMD vectors of `width` elements, `rows` iterations of a
// row loop i unrolled and jammed around them, and the sum's loops inside, so
// that rows x width sums stay in registers for a whole run of k; each vector
// of a column operand (B[k][j]) is loaded once for all rows. With `tile`,
// j and the outermost sum loop k come in blocks of `tile` and the column
// operand's block is packed into a contiguous copy (cache) per block.
// With width 0 the sum's loops go outside a whole vectorized row instead
// (bmm's hand schedule: rows short enough to stay in the first-level cache).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "autoschedule/auto_state.hpp"

namespace teml::autoschedule {

// The roles of a perfect nest's loops in the contraction it computes.
struct Contraction {
  std::vector<std::string> batch;  // output loops outside the block, in nest order
  std::string row;                 // an output loop the column operands do not use, or use only
                                   // in operands the sums do not change ("": none)
  std::string column;              // the output's last index, unit stride in every operand that uses it
  std::vector<std::string> sums;   // loops of the sum, in nest order
  std::string packed;              // a column operand a tile may pack ("": none)
  int64_t rowTrips = 0, columnTrips = 0, sumTrips = 0;  // sumTrips: the outermost sum loop's
  int lanes = 1;                                        // of the output's type on this target
};

struct RegisterBlock {
  int64_t rows = 1;   // unroll-and-jam factor of the row loop
  int64_t width = 1;  // column elements per block (a multiple of the lanes); 0: the whole row, sums outside it
  int64_t tile = 0;   // 0: no cache tiles
};

// The contraction the perfect nest from `outer` computes, if the template fits it.
std::optional<Contraction> findContraction(const ir::StmtP& body, const std::string& outer,
                                           const target::Target& target);
// The blocks worth measuring, the one heuristics choose first.
std::vector<RegisterBlock> registerBlockCandidates(const Contraction& c, const target::Target& target);
// Takes the steps; false (nothing changed) when one is refused.
bool applyRegisterBlock(AutoState& state, const Contraction& c, const RegisterBlock& block);

}  // namespace teml::autoschedule
