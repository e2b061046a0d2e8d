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

// A loop split in `parts` contiguous blocks: rank r runs block
// c = (r / stride) % parts, iterations [begin + n*c/parts, begin + n*(c+1)/parts),
// n = end - begin. One loop of a nest: parts = ranks, stride 1. Two (a grid
// of rows x cols ranks): the outer loop parts = rows, stride = cols; the
// inner parts = cols, stride 1.
struct DistributedLoop {
  std::string var;
  int64_t begin = 0, end = 0;
  int parts = 1, stride = 1;
  int block(int rank) const { return rank / stride % parts; }
  int64_t first(int rank) const { return begin + (end - begin) * block(rank) / parts; }
  int64_t last(int rank) const { return begin + (end - begin) * (block(rank) + 1) / parts; }
};

// The loop that is the whole body of `f`, looking through the run-time
// checks around it (an index check of f's iteration), or null: with `f`,
// the two loops a grid of ranks may split.
inline const For* wholeBodyLoop(const For& f) {
  const Stmt* s = f.body.get();
  while (s->kind == StmtKind::Assert) s = static_cast<const Assert*>(s)->body.get();
  return s->kind == StmtKind::For ? static_cast<const For*>(s) : nullptr;
}

// The grid of ranks a nest with two distributed loops runs on: rows x cols
// = ranks. `asked`: --ranks-grid's rows (0: chosen, the most even split).
struct RankGrid {
  int rows = 1, cols = 1;
};
RankGrid rankGrid(int ranks, int askedRows = 0);

// A tensor the program only reads, each of whose reads lies in a CSR loop
// of a distributed step (`for p in range(ptr[i], ptr[i + 1])`, i the
// distributed loop `loops[loop]`, p its first subscript): rank r keeps only
// the rows between the least and the greatest of `index[first(r)..last(r)]`,
// which the run finds once `index` is read (driver/distributed_run).
struct RowsByIndex {
  std::string index;
  size_t loop = 0;
};

struct Distribution {
  int ranks = 1;
  // Per program tensor, per rank: the box it keeps (its buffer covers the
  // box's elements from the first to the last in row-major order; an empty
  // box keeps nothing). Generated code indexes the whole tensor.
  std::map<std::string, std::vector<BoxTransfer>> kept;
  // Tensors whose part `kept` bounds (the whole) and the run narrows.
  std::map<std::string, RowsByIndex> rowsByIndex;
  // Per tensor the program writes, per rank: boxes of elements whose final
  // values this rank holds and writes out (every element by one rank at
  // least; where two write one, the values are equal).
  std::map<std::string, std::vector<std::vector<BoxTransfer>>> results;
  std::vector<DistributedLoop> loops;
  RankGrid grid;  // of nests with two distributed loops
  bool onGrid() const {
    for (auto& l : loops)
      if (l.stride > 1 || l.parts < ranks) return true;
    return false;
  }
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
