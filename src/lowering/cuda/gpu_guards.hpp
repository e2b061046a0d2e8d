// Statements of a GPU block that must not run in every thread: a
// statement outside the thread loops that writes what threads share runs
// in thread 0 alone (a guard: loops of one iteration bound to threadIdx),
// and a cache's copy is dealt to the block's threads instead. gpu_barriers
// decides which statements need them and orders the results.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "ir/stmt.hpp"

namespace teml::lowering {

class BlockGuards {
 public:
  // The kernel's threads per block; names the guards' loops take are added to `taken`.
  BlockGuards(const int64_t blockDim[3], std::set<std::string>& taken);

  // `s` in thread 0 alone: a loop of one iteration per thread index the
  // block uses (except those `s` itself is bound to).
  ir::StmtP inThreadZero(const ir::StmtP& s, const std::vector<bool>& boundDims = {false, false, false}) const;

  // A cache's copy (a perfect nest of loops with constant trip counts
  // around one store, each iteration its own element) on the block's
  // threads: its innermost loops bound to threadIdx.x, .y, .z where their
  // counts fit the block, the rest serial in every thread, and thread
  // indices it does not use guarded to 0; else its elements dealt to the
  // threads in turn. Null when `s` is no such copy.
  ir::StmtP cooperativeCopy(const ir::StmtP& s) const;

 private:
  ir::StmtP flatCopy(const std::vector<const ir::For*>& chain, const ir::StmtP& store) const;

  int64_t blockDim_[3];
  std::set<std::string>& taken_;
};

}  // namespace teml::lowering
