// Loop transformations. Each is a pure function from a loop nest to a new one
// and throws ScheduleError when it cannot be applied. Levels count from 1.
// docs/transformations.md gives the meaning of each.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "ir/program.hpp"

namespace teml::schedule {

// Splits level r into an outer loop over blocks of v iterations and an inner
// loop that keeps the original iterator; a last partial block runs when v does
// not divide the extent.
ir::StmtP stripmine(const ir::StmtP& nest, int r, int64_t v);
// Splits level r into an outer loop of `parts` iterations, each over one
// contiguous chunk of ceil(extent / parts) iterations (FreeTensor's nparts).
ir::StmtP splitParts(const ir::StmtP& nest, int r, int64_t parts);
// Level r's iterations split across the MPI ranks (contiguous blocks),
// checked as parallelize is: independent, or meeting only in reductions.
ir::StmtP distribute(const ir::StmtP& nest, int r);
// Throws ScheduleError where a distributed loop is inside another one other
// than as the whole body of a lone distributed loop (a grid of ranks).
void checkDistributedNesting(const ir::StmtP& top);
// Swaps the loops at levels r1 and r2.
ir::StmtP interchange(const ir::StmtP& nest, int r1, int r2);
// Branches without an else between loops of `loops` (by id), inside one
// of them, moved into the loop they wrap where its bounds read no tensor
// (sink_branches.cpp): the loops then form one perfect nest for reorder.
ir::StmtP sinkBranches(const ir::StmtP& top, const std::set<std::string>& loops);
// Merges the loops at levels 1..r of two nests with the same iteration ranges.
ir::StmtP fuseOuter(const ir::StmtP& a, const ir::StmtP& b, int r);
// Merges the sibling loops (same range) that form the body of level r-1.
ir::StmtP fuseInner(const ir::StmtP& nest, int r);
// Replaces the loop at level r by copies of its body, one per iteration.
ir::StmtP unroll(const ir::StmtP& nest, int r);
// Unrolls level r completely and interleaves the copies statement by
// statement: S1 of every iteration, then S2 of every iteration, ...
ir::StmtP blend(const ir::StmtP& nest, int r);
// Unrolls the loop at level r by `factor`, with a remainder loop.
ir::StmtP unrollPartial(const ir::StmtP& nest, int r, int64_t factor);
// Unrolls level r by `factor` and jams the copies into the innermost body of
// the perfect nest below it.
ir::StmtP unrollAndJam(const ir::StmtP& nest, int r, int64_t factor);
// Marks level r to run its iterations on threads / SIMD lanes; refused when
// iterations may conflict.
ir::StmtP parallelize(const ir::StmtP& nest, int r, ir::ThreadSchedule schedule = ir::ThreadSchedule::Static);
// Binds level r to a GPU scope (blockIdx.x, ..., threadIdx.z), under the
// same condition.
ir::StmtP parallelizeOnGpu(const ir::StmtP& nest, int r, ir::ParallelScope scope);
ir::StmtP vectorize(const ir::StmtP& nest, int r);
// Where the tensor `tensor` the nest defines lives (set_mem_type.cpp).
ir::StmtP setMemType(const ir::StmtP& nest, const std::string& tensor, ir::MemKind kind);
// In level r's statements, the factors of each product that do not depend on
// its iterator are multiplied first (hoist_product.cpp).
ir::StmtP hoistProduct(const ir::StmtP& nest, int r);
// Sums over level r whose terms share a factor multiply by it once (factor_sum.cpp).
ir::StmtP factorSum(const ir::StmtP& nest, int r);
// Loop r2 (inside r1) iterates over j + factor * i instead of j (loop skewing).
ir::StmtP skew(const ir::StmtP& nest, int r1, int r2, int64_t factor);
// Levels r and r + 1 trade places where level r + 1's bounds move with level
// r's iterator (after skew), keeping the set of iterations (interchange_skewed.cpp).
ir::StmtP interchangeSkewed(const ir::StmtP& nest, int r);
// A tensor loop r's body defines and uses on both sides of fission's cut
// after statement k, defined around the loop with one element per iteration
// (the iteration its new first index); the nest itself when there is none.
ir::StmtP expandAcrossFission(const ir::StmtP& nest, int r, int k);
// The local tensors of loop `loopId` (not a cache's copies) that its body
// uses on both sides of fission's cut after statement k, made local to the
// nearest loop around it instead: a copy per iteration of that loop holds
// every iteration's elements, as FreeTensor's fission expands the tensors
// its loop defines (analysis/locals checks the result as any local tensor).
// `top` itself where there are none, no loop around, or another loop there
// holds a copy of one of them.
ir::StmtP hoistLocalsAcrossFission(const ir::StmtP& top, const std::string& loopId, int k);
// The body of level r (a sequence, counted inside the tensors it defines) is
// split after its k-th statement into two loops.
ir::StmtP fission(const ir::StmtP& nest, int r, int k);
// Statements a and b of the sequence forming the body of level r (r = 0: the nest itself) trade places.
ir::StmtP swap(const ir::StmtP& nest, int r, int a, int b);
// Levels r and r+1 (constant trip counts) become one loop.
ir::StmtP merge(const ir::StmtP& nest, int r);
// Level r is split into the iterations where an inner loop's min(c*v + d, X)
// bound is its first argument (full blocks) and the rest (the tail).
ir::StmtP separateTail(const ir::StmtP& nest, int r);
// Level r (constant bounds, step 1) is split into the iterations before its
// interior, the interior, and those after it: the interior is where every
// branch inside whose condition compares expressions linear in the loop's
// iterator surely holds, given the bounds of the loops around and inside;
// there those branches are replaced by their then-branch. `around`: loops
// outside the nest (a branch may ask about their iterators too).
ir::StmtP separateInterior(const ir::StmtP& nest, int r, const std::vector<const ir::For*>& around = {});
// A nest computing C[i][j] += A[i][k] * B[k][j] (A or B possibly transposed)
// becomes a call of BLAS gemm (OpenBLAS).
ir::StmtP asLib(const ir::StmtP& nest, const ir::Program& program);
// Tensor `tensor` becomes local to level r: every iteration works on a fresh
// copy, of which code generation stores only the part one iteration touches.
// Whether that keeps the results is analysis::checkLocals's to decide.
ir::StmtP makeLocal(const ir::StmtP& nest, int r, const ir::LocalTensor& tensor);
// Every iteration of level r works on `cacheName`, a local copy of the box of
// `tensor` it touches: copied in before the body, copied back after it when
// the body writes (cache). cache_reduce (reduce = true): the body only
// updates the tensor with one kind of reduction; the copy starts at that
// reduction's identity and is added (multiplied, ...) into the tensor after.
// Copies are clamped to the tensor's bounds.
// `zeroed`: the copy starts as zeros instead of reading the tensor (the
// tensor holds its starting zeros there; Schedule::cacheZeroed checks that).
ir::StmtP cache(const ir::StmtP& nest, int r, const ir::TensorDecl& tensor, const std::string& cacheName, bool reduce,
                bool zeroed = false);

// The copy-in of cache copy `copy` also fetches, into the L2 cache, the box
// of its tensor that the iteration `distance` steps later copies. The box
// must be contiguous in memory (only its first dimension cut).
ir::StmtP prefetch(const ir::StmtP& nest, const ir::Program& program, const std::string& copy, int distance);
// Layout changes of a tensor local to a loop of the nest (FreeTensor's
// var_reorder, var_split, var_merge): every access is rewritten. Dimensions
// count from 1. var_reorder: dimension k of the new layout is old dimension
// order[k]; var_split: dimension dim becomes (i / factor, i mod factor);
// var_merge: dimensions dim and dim + 1 become one, i * extent + j.
ir::StmtP varReorder(const ir::StmtP& nest, const std::string& tensor, const std::vector<int>& order);
ir::StmtP varSplit(const ir::StmtP& nest, const std::string& tensor, int dim, int64_t factor);
ir::StmtP varMerge(const ir::StmtP& nest, const std::string& tensor, int dim);
// Inside level r, accesses of `old` become accesses of `replacement`, a
// transposition of it: dimension k of `old` is dimension sigma[k] (from 0) of
// `replacement`. readsOnly (a physical copy): writes of `old` are refused, as
// is a nest that computes the copy itself. Whether the copy holds old's values
// where it is read, and whether a virtual transposition replaced every access,
// is for the caller to check over the whole program.
ir::StmtP replaceArray(const ir::StmtP& nest, int r, const std::string& old, const ir::TensorDecl& replacement,
                       const std::vector<int>& sigma, bool readsOnly);
// The names of the tensors local to some loop of the nest.
std::set<std::string> localTensors(const ir::StmtP& nest);
// Compositions (TeML paper, Section 4.1).
ir::StmtP stripmineN(const ir::StmtP& nest, int n, int64_t v);
ir::StmtP interchangeN(const ir::StmtP& nest, int r, int n);
ir::StmtP tile(const ir::StmtP& nest, int64_t v);

// Refuses a parallel loop inside a vectorized one (OpenMP cannot nest them).
void checkParallelNesting(const ir::StmtP& nest, const std::string& what);

// Refuses a nest in which a loop bound or an index uses an iterator that no
// enclosing loop defines.
void checkScoping(const ir::StmtP& nest, const std::string& what);

}  // namespace teml::schedule
