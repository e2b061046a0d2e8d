// Statements of the loop IR: loops, element stores, reductions into an element
// (+=, *=, max=, min=), sequences and guards. Immutable and shared.
#pragma once
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "diag/diagnostics.hpp"
#include "ir/expr.hpp"
#include "ir/tensor_decl.hpp"

namespace teml::ir {

enum class StmtKind {
#define TEML_STMT_NODE(Kind) Kind,
#include "ir/nodes.def"
};

// How OpenMP hands a parallel loop's iterations to threads.
enum class ThreadSchedule { Static, Dynamic, Guided };
const char* threadScheduleName(ThreadSchedule s);  // "static", "dynamic", "guided"

// Where a loop's iterations run (FreeTensor's parallel scope): one after
// another, in threads (OpenMP `parallel for`), in SIMD lanes (`simd`, or
// explicit vectors), or chunks in threads and each chunk in lanes (`parallel
// for simd`), or on a GPU in the blocks of a kernel's grid (`blockIdx.x`,
// `.y`, `.z`) or the threads of a block (`threadIdx.x`, ...). An unrolled
// loop is not a scope: unroll rewrites it into copies of its body.
enum class ParallelScope {
  Serial, Threads, SimdLanes, ThreadsAndSimdLanes,
  BlockX, BlockY, BlockZ, ThreadX, ThreadY, ThreadZ
};
// "serial", "threads", "simd", "threads+simd", "blockIdx.x", ..., "threadIdx.z"
const char* parallelScopeName(ParallelScope s);
// The GPU scope a name spells ("blockIdx.x", ...), if it is one.
std::optional<ParallelScope> gpuScopeNamed(const std::string& name);
// 0, 1, 2 for .x, .y, .z of a GPU scope.
int gpuDimension(ParallelScope s);
// threadIdx.x, .y, .z for dimension 0, 1, 2.
ParallelScope threadScope(int dimension);

enum class ReduceOp { Add, Mul, Max, Min };

// Written by the lowering stage (src/lowering): a private accumulator that
// every thread or SIMD lane of a loop gets its own copy of, starting from
// the reduction's identity, combined into the accumulator with `op` when the
// loop ends (OpenMP's reduction clause). `accumulator` is a tensor defined
// around the loop (a VarDef) standing for the elements of `of` that the
// loop's reductions update, or `of` itself. With `perThreadCopies` (arrays
// too large for a thread's stack) the generated code allocates the
// threads' copies itself, except the first thread's, which updates the
// accumulator directly, and adds them in one thread at a time.
struct ReductionClause {
  ReduceOp op = ReduceOp::Add;
  std::string accumulator;
  std::string of;
  bool perThreadCopies = false;
  bool operator==(const ReductionClause&) const = default;
};

// How a loop in SIMD lanes is written, decided by the lowering stage
// (src/lowering/vector_plans): left to the C compiler (`#pragma omp simd`),
// or explicit vectors of `width` elements of `dtype` over its `span`
// iterations: one copy of the body per vector, jammed into its inner loops
// (a few vectors), a loop over whole vectors, or a loop of non-temporal
// vector stores (a large output nothing else reads). The last `tailLanes`
// iterations run as one masked vector (0: as scalar iterations). A loop
// that streams through memory may run on vectors of half that width
// (src/lowering/cpu/half_vectors): always, or only in calls where the base
// address of one of `alignmentTested` is off a vector's boundary; then the
// remainder of whole half vectors runs as scalar iterations.
enum class VectorForm { Pragma, Jammed, Loop, Streaming };
const char* vectorFormName(VectorForm f);  // "pragma", "jammed", "loop", "streaming"
enum class HalfWidth { Never, Always, WhereMisaligned };

struct VectorPlan {
  VectorForm form = VectorForm::Pragma;
  DType dtype = DType::F64;
  int width = 0;
  int64_t span = 0;
  int tailLanes = 0;
  HalfWidth half = HalfWidth::Never;
  std::vector<std::string> alignmentTested;
  bool operator==(const VectorPlan&) const = default;
};

// How a nest of plain loops around one copy dst[...] = src[...] is written,
// decided by the lowering stage (src/lowering/copy_plans): loop by loop; as
// one flat copy of a contiguous block (memcpy, or non-temporal vector
// stores into a large destination nothing else reads); or in the
// destination's order with whole vectors gathered from the source's stride
// (a transposing copy). Set on the nest's outermost loop.
enum class CopyForm { Loops, Flat, FlatStreaming, Gathered };
const char* copyFormName(CopyForm f);  // "loops", "flat", "flat streaming", "gathered"

// One loop of a gathered copy: its span and how far one step moves the
// destination and the source, in elements.
struct CopyLoop {
  std::string var;
  int64_t span, to, from;
  bool operator==(const CopyLoop&) const = default;
};

// A copy nest as it is written: the two tensors, the first element of each
// that is copied, and for a flat copy how many elements follow, for a
// gathered one its loops in the destination's order (neighbours that step
// through both tensors alike merged into one) and the vector width.
struct CopyPlan {
  CopyForm form = CopyForm::Loops;
  std::string to, from;
  std::vector<ExprP> toFirst, fromFirst;
  ExprP elements;
  std::vector<CopyLoop> loops;
  int width = 0;
  bool operator==(const CopyPlan&) const = default;
};

// A reduction `t[I] += shared * varying` of a loop's registerSums whose
// register adds up only `varying` and multiplies by `shared` once after the
// loop (written by the lowering stage for factor_sum).
struct FactoredSum {
  std::string id;
  ExprP shared, varying;
  bool operator==(const FactoredSum&) const = default;
};

// Written by the lowering stage (lowering/indirect_prefetches): an element
// that an iteration `prefetchAhead` iterations later touches through an
// index read from data (a gather x[idx[p]], or a scatter into it): no
// hardware prefetcher can guess its address, so the loop fetches it into
// the cache at the top of each iteration.
struct Prefetch {
  ExprP at;            // a Load, in terms of this iteration's iterator
  bool write = false;  // the element is updated
  bool operator==(const Prefetch&) const = default;
};

// How the CPU back end writes a loop: plans its lowering passes
// (src/lowering/cpu/) write and its emitter alone reads. Another target
// neither writes nor reads them.
struct CpuLoopPlans {
  VectorPlan vectorPlan;  // of a loop in SIMD lanes
  // A loop inside an explicit vector plan: the ids of the reductions whose
  // element stays in a vector register while this loop runs (loaded before
  // it, stored after it; analysis/register_reductions).
  std::vector<std::string> registerSums;
  std::vector<FactoredSum> factoredSums;  // those of registerSums whose shared factor multiplies once after the loop
  CopyPlan copy;                          // of a copy nest's outermost loop
  std::vector<Prefetch> prefetches;       // software prefetches, prefetchAhead iterations ahead
  int64_t prefetchAhead = 0;
  bool operator==(const CpuLoopPlans&) const = default;
};

// Written by the CUDA target's lowering (lowering/cuda/gpu_kernels) on the
// outermost loop of each kernel (its first loop bound to blockIdx): the
// kernel's name, its threads per block in x, y, z (the largest trip count
// of its loops bound to threadIdx.x, .y, .z; threads past a loop's count
// skip it), and its shared memory, requested dynamically above the static
// limit.
struct GpuKernelPlan {
  std::string name;  // "" on every other loop
  int64_t blockDim[3] = {1, 1, 1};
  int64_t sharedBytes = 0;
  bool dynamicShared = false;
  // The launch, written last (lowering/cuda/gpu_launches) and only read
  // after: by the emitter, the host runner and the emulator alike.
  std::string symbol;                   // the __global__ function's C name
  ExprP grid[3];                        // blocks in x, y, z: expressions of the host (null before)
  std::vector<std::string> tensorArgs;  // then its arguments: device pointers, by IR name,
  std::vector<std::string> scalarArgs;  // and the host's iterators it reads, as long
  bool operator==(const GpuKernelPlan& o) const;
};

struct LoopKind {
  ParallelScope scope = ParallelScope::Serial;
  ThreadSchedule schedule = ThreadSchedule::Static;  // of a loop in threads
  bool threads() const { return scope == ParallelScope::Threads || scope == ParallelScope::ThreadsAndSimdLanes; }
  bool lanes() const { return scope == ParallelScope::SimdLanes || scope == ParallelScope::ThreadsAndSimdLanes; }
  bool concurrent() const { return scope != ParallelScope::Serial; }
  bool gpuBlocks() const { return scope >= ParallelScope::BlockX && scope <= ParallelScope::BlockZ; }
  bool gpuThreads() const { return scope >= ParallelScope::ThreadX && scope <= ParallelScope::ThreadZ; }
  bool gpu() const { return gpuBlocks() || gpuThreads(); }
  // The scope with threads or lanes added (parallelize, vectorize, merge).
  static ParallelScope join(ParallelScope a, ParallelScope b);
  // Proven by dependence analysis: no two iterations touch one element with a
  // write, so the loop needs no reduction clause or atomic at all.
  bool independent = false;
  // Proven by dependence analysis when the loop was marked: no two
  // iterations share an element of these tensors (reductions aside). The
  // lowering's second look falls back on it where the nest it sees hides
  // what made them provable (the copy of a nest whose index checks a range
  // check made redundant).
  std::set<std::string> apart;
  // Written by the lowering stage: the loop's private accumulators, and for
  // a serial loop whether its iterations depend on each other by more than
  // reductions (the emitter then keeps the C compiler from vectorizing it).
  std::vector<ReductionClause> reductions;
  bool carriesDependence = false;
  // factor_sum: sums over this loop whose terms share a factor
  // (analysis/factored_sums) add up only the rest and multiply once after
  // it (CpuLoopPlans::factoredSums: those the CPU's lowering does so).
  bool factorSums = false;
  // distribute: the iterations split across the MPI ranks in contiguous
  // blocks (with one rank, all of them: the loop runs as it would without).
  bool distributed = false;
  CpuLoopPlans cpu;  // the CPU target's own plans (empty for any other target)
  GpuKernelPlan kernel;  // of a CUDA kernel's outermost loop
  bool operator==(const LoopKind&) const = default;
};
const char* reduceOpName(ReduceOp op);  // "+=", "*=", "max=", "min="
// The value a reduction starts from: 0, 1, -inf, +inf.
double reduceIdentity(ReduceOp op);

struct Stmt;
using StmtP = std::shared_ptr<const Stmt>;

// Identity of a statement for dependence analysis: which statement it was when
// built (`id`, with the names of its loop iterators then) and, in terms of the
// current loop iterators, which of that statement's instances it executes.
// Transformations rewrite `origin` with everything else (an unrolled copy
// for i + 1 has origin i + 1), so any two versions of a nest can be compared
// instance by instance.
struct StmtTag {
  std::string id;
  std::vector<std::string> names;
  std::vector<ExprP> origin;
  bool known() const { return !id.empty(); }
};

// Where a statement comes from: the source position of what it was written
// as (a loop, a tensor statement, an assignment), and for a statement a
// primitive made or changed, that primitive and the id of the statement it
// was made from.
struct Provenance {
  SourceLoc loc;
  std::string primitive;  // "" for a statement as written
  std::string from;
  bool operator==(const Provenance&) const = default;
};

// Every statement has an id, unique in its nest (the nests of a program
// are numbered: "# nest k"), and its provenance. Loops get their ids from
// the front ends and primitives; other statements are numbered S1, S2, ...
// by ir::uniqueStatementIds; a Mutator that rebuilds a statement keeps its
// id and provenance.
struct Stmt : std::enable_shared_from_this<Stmt> {
  const StmtKind kind;
  const std::string id;
  const Provenance made;
  explicit Stmt(StmtKind k, std::string i = {}, Provenance m = {}) : kind(k), id(std::move(i)), made(std::move(m)) {}
  virtual ~Stmt() = default;
  StmtP self() const { return shared_from_this(); }  // see Expr::self
  // The node as its kind's type, after a test of `kind`: s->as<For>().
  template <class T>
  const T& as() const {
    assert(dynamic_cast<const T*>(this) && "as<T>() on a node of another kind");
    return static_cast<const T&>(*this);
  }
};

// for (var = begin; var < end; var += step) { body }, or with a negative
// step, counting down: for (var = begin; var > end; var += step) (Python's
// range(begin, end, step)). The tensors local to its iterations (TeML's
// local and cache) are VarDefs with a LoopLocal around the rest of the body.
struct For : Stmt {  // its id is stable: it survives transformations
  const std::string var;
  const ExprP begin, end;
  const int64_t step;
  const LoopKind loopKind;
  const StmtP body;
  For(std::string i, std::string v, ExprP b, ExprP e, int64_t s, LoopKind k, StmtP bd, Provenance m = {})
      : Stmt(StmtKind::For, std::move(i), std::move(m)), var(std::move(v)), begin(std::move(b)),
        end(std::move(e)), step(s), loopKind(k), body(std::move(bd)) {}
};

// tensor[indices] = value
struct Store : Stmt {
  const std::string tensor;
  const std::vector<ExprP> indices;
  const ExprP value;
  const SourceLoc loc;
  const StmtTag tag;
  Store(std::string t, std::vector<ExprP> idx, ExprP v, SourceLoc l, StmtTag g = {}, std::string i = {},
        Provenance m = {})
      : Stmt(StmtKind::Store, std::move(i), std::move(m)), tensor(std::move(t)), indices(std::move(idx)), value(std::move(v)), loc(l),
        tag(std::move(g)) {}
};

// tensor[indices] op= value
struct Reduce : Stmt {
  const ReduceOp op;
  const std::string tensor;
  const std::vector<ExprP> indices;
  const ExprP value;
  const SourceLoc loc;
  const StmtTag tag;
  // Set by the lowering stage: threads may update the element at the same
  // time, so the update is an atomic read-modify-write.
  const bool atomic;
  Reduce(ReduceOp o, std::string t, std::vector<ExprP> idx, ExprP v, SourceLoc l, StmtTag g = {}, bool a = false,
         std::string i = {}, Provenance m = {})
      : Stmt(StmtKind::Reduce, std::move(i), std::move(m)), op(o), tensor(std::move(t)), indices(std::move(idx)),
        value(std::move(v)), loc(l), tag(std::move(g)), atomic(a) {}
};

struct Seq : Stmt {
  const std::vector<StmtP> stmts;
  explicit Seq(std::vector<StmtP> s, std::string i = {}, Provenance m = {})
      : Stmt(StmtKind::Seq, std::move(i), std::move(m)), stmts(std::move(s)) {}
};

// if (cond) then else otherwise (otherwise may be null)
struct If : Stmt {
  const ExprP cond;
  const StmtP then, otherwise;
  If(ExprP c, StmtP t, StmtP o, std::string i = {}, Provenance m = {})
      : Stmt(StmtKind::If, std::move(i), std::move(m)), cond(std::move(c)), then(std::move(t)), otherwise(std::move(o)) {}
};

// A call of a library routine that computes what `reference` (the loop nest
// it replaced) computes. Code generation emits the call; the interpreter and
// the analyses use the reference.
struct LibCall : Stmt {
  const std::string routine;               // "gemm"
  const std::vector<std::string> tensors;  // gemm: C, A, B
  const std::vector<int64_t> args;         // gemm: transA, transB, M, N, K, lda, ldb, ldc
  const StmtP reference;
  LibCall(std::string r, std::vector<std::string> t, std::vector<int64_t> a, StmtP ref, std::string i = {},
          Provenance m = {})
      : Stmt(StmtKind::LibCall, std::move(i), std::move(m)), routine(std::move(r)), tensors(std::move(t)), args(std::move(a)),
        reference(std::move(ref)) {}
};

// A tensor that exists only while `body` runs (FreeTensor's VarDef): a fresh
// one, all zeros, each time the statement runs. Program tensors are the
// outermost tensors; a VarDef inside a loop gives every iteration its own.
// With `loopLocal` set it is one of TeML's loop-local tensors: the body of
// a loop (or of another such VarDef), owned by that loop, its accesses
// keeping the indices of the whole tensor (see LocalTensor).
struct VarDef : Stmt {
  const TensorDecl decl;
  const StmtP body;
  const std::optional<LoopLocal> loopLocal;
  VarDef(TensorDecl d, StmtP b, std::optional<LoopLocal> l = std::nullopt, std::string i = {}, Provenance m = {})
      : Stmt(StmtKind::VarDef, std::move(i), std::move(m)), decl(std::move(d)), body(std::move(b)), loopLocal(l) {}
};

StmtP makeVarDef(TensorDecl decl, StmtP body);

// A run-time check (FreeTensor's Assert): `body` runs only when `cond` holds;
// otherwise the run stops with `message` at `loc`, "{}" in it replaced by
// the value of `shown` (an integer expression, may be null). Generated code
// never runs the body of a failed check, so a check in front of an access
// keeps it in bounds.
struct Assert : Stmt {
  const ExprP cond;
  const std::string message;
  const ExprP shown;
  const SourceLoc loc;
  const StmtP body;
  Assert(ExprP c, std::string m, ExprP v, SourceLoc l, StmtP b, std::string i = {}, Provenance p = {})
      : Stmt(StmtKind::Assert, std::move(i), std::move(p)), cond(std::move(c)), message(std::move(m)), shown(std::move(v)), loc(l), body(std::move(b)) {}
};

// Written by the CUDA lowering (lowering/cuda/gpu_barriers): the threads
// of a block (`Block`: __syncthreads) or of a warp (`Warp`: __syncwarp, a
// block of one warp) wait here for each other; what any of them did before
// it happens before what any does after it. Only at block level (outside
// loops bound to threadIdx), where control is the same for every thread.
enum class BarrierScope { Block, Warp };
struct Barrier : Stmt {
  const BarrierScope scope;
  explicit Barrier(BarrierScope s, std::string i = {}, Provenance m = {})
      : Stmt(StmtKind::Barrier, std::move(i), std::move(m)), scope(s) {}
};

// Written by the lowering stage for several MPI ranks
// (lowering/distributed/exchanges): data moved between ranks between two
// steps of a program, as docs/distributed.md describes. Every rank runs the
// statement; each takes the part of `transfers` that names it.
//   Halo, Broadcast, Gather: rank `from` sends box [lo, hi) of `tensor` to
//     rank `to` (elements a rank reads and another wrote, or that no
//     partition narrows: every iteration reads them, or indices from data).
//   ReductionStart: ranks other than 0 set box `combined` to `op`'s
//     identity, so that a value the tensor starts with is counted once.
//   Reduction: box `combined` summed (`op`) over every rank, in every rank.
// The MPI rank running the code: the variable in a distributed loop's bounds
// (lowering/distributed/rank_blocks), a name no program can give a loop.
inline constexpr const char* kRankVariable = "teml.rank";
// IndexedRequests: of the rows `transfers` may bring, each rank asks for
// only those its step names through its index tensors, marked in
// `namedRows` (a bool per row) by an inspector run just before
// (lowering/distributed/inspector); the plan is kept while no rank's marks
// change. IndexedGather: the rows the requests of the same `index` asked.
// OwnersReductionStart: each rank sets the rows of box `combined` it does
// not own to `op`'s identity; `transfers` has an entry per rank, {rank,
// rank, the rows of the box it owns}. ReductionToOwners: each rank sends
// the rows of the box that other ranks own and that it changed (no longer
// the identity) to their owners, which combine them into theirs
// (owner-computes, for a reduction through indices loaded from data: a
// rank touches only the rows its indices name).
// HaloStart, HaloWait: a halo in two parts (overlap): the start posts its
// sends and receives, the wait (same `index` and transfers) completes them
// and stores what arrived; the step's interior runs in between.
enum class ExchangeKind {
  Halo,
  HaloStart,
  HaloWait,
  Broadcast,
  Gather,
  IndexedRequests,
  IndexedGather,
  ReductionStart,
  Reduction,
  OwnersReductionStart,
  ReductionToOwners
};
const char* exchangeKindName(ExchangeKind k);  // "halo", "broadcast", "gather", "indexed gather", ...
// A kind that moves no rows of its own: it prepares (a reduction's start,
// an indexed gather's requests) or completes (a halo's wait) the exchange
// that counts the bytes.
bool movesNoRows(ExchangeKind k);
struct BoxTransfer {
  int from = 0, to = 0;
  std::vector<int64_t> lo, hi;  // per dimension, hi exclusive
  int64_t elements() const;
};
struct Exchange : Stmt {
  const ExchangeKind kind;
  const std::string tensor;
  const ReduceOp op;
  const std::vector<BoxTransfer> transfers;  // Halo, Broadcast, Gather; the owners' rows
  const BoxTransfer combined;                // the reductions' kinds (from, to unused)
  const int index;                           // its place among the program's exchanges (counters for -v)
  const std::string namedRows;               // IndexedRequests
  Exchange(ExchangeKind k, std::string t, ReduceOp o, std::vector<BoxTransfer> tr, BoxTransfer c, int n,
           std::string i = {}, Provenance m = {}, std::string named = {})
      : Stmt(StmtKind::Exchange, std::move(i), std::move(m)), kind(k), tensor(std::move(t)), op(o),
        transfers(std::move(tr)), combined(std::move(c)), index(n), namedRows(std::move(named)) {}
};

StmtP makeAssert(ExprP cond, std::string message, ExprP shown, SourceLoc loc, StmtP body);
// An assertion's message with "{}" replaced by the value shown.
std::string assertionMessage(const std::string& message, int64_t shown);

// A loop; `locals` become VarDefs around `body`, owned by the loop.
StmtP makeFor(std::string id, std::string var, ExprP begin, ExprP end, int64_t step, LoopKind kind,
              StmtP body, const std::vector<LocalTensor>& locals = {}, Provenance made = {});
// The tensors local to f's iterations, outermost first, and f's body inside them.
std::vector<LocalTensor> localsOf(const For& f);
const StmtP& loopBody(const For& f);
// A copy of `f` with another loop body (same header, same local tensors).
StmtP withBody(const For& f, StmtP body);
StmtP makeStore(std::string tensor, std::vector<ExprP> indices, ExprP value, SourceLoc loc, StmtTag tag = {});
StmtP makeReduce(ReduceOp op, std::string tensor, std::vector<ExprP> indices, ExprP value,
                 SourceLoc loc, StmtTag tag = {}, bool atomic = false);
// A sequence; nested sequences are flattened and a single statement is returned as is.
StmtP makeSeq(std::vector<StmtP> stmts);
// The statements that are not null, in sequence; null when none is.
StmtP makeSeqOfPresent(std::vector<StmtP> stmts);
StmtP makeIf(ExprP cond, StmtP then, StmtP otherwise);

// A copy of `s` with another id and provenance (everything else the same).
StmtP withIdentity(const StmtP& s, std::string id, Provenance made);

// Where `s` stands in the source, for messages: a store's, reduction's or
// assertion's own location, else where it was made, else the first such
// location inside it.
SourceLoc sourceLocOf(const StmtP& s);

// The statements of s as a list (the items of a Seq, or s alone).
std::vector<StmtP> items(const StmtP& s);

}  // namespace teml::ir
