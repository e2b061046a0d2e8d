// What a program lowered for several MPI ranks asks of the process that
// runs it (lowering/distributed/exchanges): which part of each program
// tensor a rank keeps, which elements it writes to an output file, and the
// loops split across the ranks. The exchanges themselves are statements
// (ir::Exchange).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "diag/diagnostics.hpp"
#include "ir/mutator.hpp"
#include "ir/stmt.hpp"

namespace teml::ir {

struct DistributedLoop {
  std::string var;
  int64_t begin = 0, end = 0;  // rank r runs [begin + n*r/R, begin + n*(r+1)/R), n = end - begin
  int64_t first(int rank, int ranks) const { return begin + (end - begin) * rank / ranks; }
};

struct Distribution {
  int ranks = 1;
  // Per program tensor, per rank: the box it keeps (its buffer covers the
  // box's elements from the first to the last in row-major order; an empty
  // box keeps nothing). Generated code indexes the whole tensor.
  std::map<std::string, std::vector<BoxTransfer>> kept;
  // Per tensor the program writes, per rank: boxes of elements whose final
  // values this rank holds and writes out (every element by one rank at
  // least; where two write one, the values are equal).
  std::map<std::string, std::vector<std::vector<BoxTransfer>>> results;
  std::vector<DistributedLoop> loops;
  // Loop id -> the `distribute` call that marked it (a schedule's line):
  // where a refusal of the plan points.
  std::map<std::string, SourceLoc> askedAt;
};

// Records `call` for every distributed loop of `nest` that has no call yet
// (after a `distribute` step: the loop it marked).
inline void recordDistributeCall(const StmtP& nest, SourceLoc call, Distribution& d) {
  forEachStmt(nest, [&](const StmtP& s) {
    if (s->kind == StmtKind::For && s->as<For>().loopKind.distributed) d.askedAt.emplace(s->id, call);
  });
}

}  // namespace teml::ir
