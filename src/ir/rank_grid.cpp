#include "diag/diagnostics.hpp"
#include "ir/distribution.hpp"

namespace teml::ir {

// The most even split, rows >= cols: each rank's block then has about the
// least perimeter (a square domain's halo), and the outer loop, whose
// blocks are contiguous rows, takes the larger count.
RankGrid rankGrid(int ranks, int askedRows) {
  if (askedRows > 0) {
    if (ranks % askedRows != 0)
      throw UserError(SourceLoc{}, "--ranks-grid: " + std::to_string(askedRows) + " rows of ranks do not divide " +
                                       std::to_string(ranks) + " ranks");
    return {askedRows, ranks / askedRows};
  }
  int cols = 1;
  for (int c = 1; c * c <= ranks; ++c)
    if (ranks % c == 0) cols = c;
  return {ranks / cols, cols};
}

}  // namespace teml::ir
