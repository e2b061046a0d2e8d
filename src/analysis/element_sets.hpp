// The elements of each tensor that one step of a program (a statement at its
// top level) reads and writes, as exact isl sets with every size known: for
// every instance, or for the instances one MPI rank runs (a block of the
// step's outermost loop). The distribution plan (lowering/distributed) asks
// these questions per rank.
#pragma once
#include <isl/set.h>

#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "ir/stmt.hpp"

namespace teml::analysis {

// What the plan cannot describe or carry (the caller names the loop).
struct CannotDistribute : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// An isl set of elements of one tensor (RAII, value semantics).
class ElementSet {
 public:
  ElementSet() = default;
  explicit ElementSet(isl_set* s) : s_(s) {}
  ElementSet(const ElementSet& o) : s_(o.s_ ? isl_set_copy(o.s_) : nullptr) {}
  ElementSet& operator=(ElementSet o) {
    std::swap(s_, o.s_);
    return *this;
  }
  ~ElementSet() {
    if (s_) isl_set_free(s_);
  }
  // Every element of a tensor of this shape; none of them.
  static ElementSet whole(isl_ctx* ctx, const std::vector<int64_t>& shape);
  static ElementSet none(isl_ctx* ctx, const std::vector<int64_t>& shape);
  // The elements in box [lo, hi).
  static ElementSet box(isl_ctx* ctx, const std::vector<int64_t>& lo, const std::vector<int64_t>& hi);

  ElementSet operator|(const ElementSet& o) const;
  ElementSet operator&(const ElementSet& o) const;
  ElementSet operator-(const ElementSet& o) const;
  bool empty() const;
  bool subsetOf(const ElementSet& o) const;
  // The smallest box holding the set; false when it is empty.
  bool hull(std::vector<int64_t>& lo, std::vector<int64_t>& hi) const;
  // Boxes whose union is the set, each within it: the hull where the set is
  // a box, else the hulls of its disjoint pieces, a piece that is no box cut
  // into slices along a dimension (at most 4096 slices in all); nullopt
  // past that (a large triangle), which whole-box messages cannot carry.
  std::optional<std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>>> boxes() const;
  isl_set* get() const { return s_; }

 private:
  isl_set* s_ = nullptr;
};

struct StepAccesses {
  std::map<std::string, ElementSet> read, written;
  // Written by statements that may leave some of them as they were (inside
  // a branch, through indices loaded from data, in loops whose bounds data
  // decide): a rank that writes them must hold their values before.
  std::map<std::string, ElementSet> perhapsWritten;
  std::map<std::string, std::set<ir::ReduceOp>> reduceOps;  // ops of Reduce writes, per tensor
  std::set<std::string> stored;                             // tensors some Store writes
  std::set<std::string> indirect;                           // read through indices loaded from data
  std::set<std::string> scattered;                          // reduced into through indices loaded from data
};

// Iterations [first, last) of the loop `level` loops deep in a step (0: the
// step itself).
struct LoopBlock {
  size_t level = 0;
  int64_t first = 0, last = 0;
};

// The accesses of `step` to the tensors of `shapes` (tensors defined inside
// the step are its own). With `blocks`, only the instances whose loops run
// the iterations each block names (a rank's part of a distributed step; an
// empty list: every instance). Throws CannotDistribute when isl cannot
// describe the step.
StepAccesses stepAccesses(isl_ctx* ctx, const ir::StmtP& step, const std::map<std::string, std::vector<int64_t>>& shapes,
                          const std::vector<LoopBlock>& blocks = {});

}  // namespace teml::analysis
