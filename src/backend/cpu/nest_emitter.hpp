// C code for one loop nest of a program: loops (OpenMP for parallel ones,
// with reduction clauses, private accumulators or atomics), local tensors
// (stack or heap arrays of their boxes), statements, and explicit vector code
// for planned vector loops (nest_emitter_vector.cpp). c_emitter.cpp puts the
// nests of a program together.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "codegen/c_expr.hpp"
#include "codegen/c_names.hpp"
#include "ir/functor.hpp"
#include "ir/mutator.hpp"
#include "ir/program.hpp"
#include "target/target.hpp"

namespace teml::codegen {

// No loop and no branch in `body`: every statement runs once per iteration
// (the innermost loop of a register block; nest_emitter_shared_loads.cpp).
bool onlyStatements(const ir::StmtP& body);

using ir::CopyLoop;
using ir::CopyPlan;
using ir::ExprP;
using ir::For;
using ir::LibCall;
using ir::Program;
using ir::Reduce;
using ir::StmtP;
using ir::Store;
using ir::TensorDecl;

class NestEmitter {
 public:
  NestEmitter(const Program& p, const target::Target& target, std::map<std::string, std::string> tensorNames,
              std::string nestName, const StmtP& nest);

  std::string body(const StmtP& nest);
  // Functions holding the bodies of parallel loops; they precede the nest's function.
  const std::string& helpers() const { return helpers_; }

 private:
  // A scalar the lowering stage put in a register (an accumulator).
  struct Register {
    std::string cname;
    ir::DType dtype;
    std::string ref;  // how code refers to it: the name, or (*name) inside a body function
  };

  void line(int indent, const std::string& s) { *out_ << std::string(indent * 2, ' ') << s << "\n"; }

  std::string iterName(const std::string& var);

  bool isSingle(const std::string& tensor);

  std::string access(const std::string& tensor, const std::vector<ExprP>& idx);

  // Copy nests as planned (ir::CopyPlan, nest_emitter_copy.cpp).
  void emitFlatCopy(const For& f, int indent);
  void emitGatheredCopy(const For& f, int indent);
  // Declares what the copy into `copy` (from `source`, starting at `from`)
  // fetches ahead; returns the bytes to fetch (0: nothing) and sets `base`.
  int64_t prefetchPlan(const std::string& copy, const std::string& source, const std::string& from, int indent,
                       std::string* base);

  std::string expr(const ExprP& e, int parent, bool right, bool single);

  std::string loopHeader(const For& f, const std::string& cvar);

  void emitFor(const For& f, int indent);
  // The operator of an OpenMP reduction clause for r's accumulator.
  const char* clauseOperator(const ir::ReductionClause& r) const;
  static bool runsOnce(const For& f);
  bool emitWithIndexLoadsHoisted(const For& f, int indent);
  // A long reduction loop in lanes (sums, floats' maxima and minima) run in
  // independent partial results (nest_emitter_partial_sums.cpp): how many
  // (0: the loop as it is).
  int64_t partialSums(const For& f);
  void emitPartialSums(const For& f, const std::string& cvar, int64_t parts, int indent);
  std::string alignedStart(const For& f);
  // Short reductions side by side summed across lanes together
  // (nest_emitter_joint_sums.cpp): the lanes of each (0: the loop as it is).
  int64_t jointSums(const For& f);
  void emitJointSums(const For& f, int64_t lanes, int indent);
  bool jointSumsAsVectors(const For& f, ir::DType dtype);
  void emitJointSumsInVectors(const For& f, const std::string& block, int64_t lanes,
                              const std::vector<std::string>& accs, const std::vector<std::string>& parts, int indent);
  // Data moved between MPI ranks (nest_emitter_exchange.cpp).
  void emitExchange(const ir::Exchange& x, int indent);

  // Emits the body of parallel loop f as a function of the iterators in scope,
  // the tensors and the accumulators it uses, and returns the call. GCC
  // vectorizes such a function as well as sequential code, which it often
  // fails to do inside the function it outlines for a parallel region.
  // `inVectorCopy`: f is inside an explicit vector loop; the addresses are the current copy's.
  void emitPrefetches(const ir::For& f, int indent, bool inVectorCopy = false);
  void privateCopyIn(const ir::ReductionClause& r, const std::string& copy, int slot, int indent);
  void privateCopyOut(const ir::ReductionClause& r, const std::string& copy, int slot, int indent);
  std::string bodyFunction(const For& f);

  // ---- explicit vectors (GCC vector extensions) for planned vector loops
  // Lane 0 of a vector is the element at the chunk's first iteration; the
  // loop steps by whole vectors and a scalar loop runs the remainder.
  void emitVectorLoop(const For& f, const std::string& cvar, int indent);
  void emitVectorLoopAs(const For& f, const ir::VectorPlan& plan, const std::string& cvar, int indent);

  // Scalar iterations until the store's address is vector-aligned, whole
  // vectors stored with __builtin_nontemporal_store, scalar iterations for
  // the rest, then a store fence (the stores are weakly ordered).
  void emitStreamingLoop(const For& f, const Store& st, const std::string& cvar, const ir::VectorPlan& plan, int indent);

  // Indices of the current vector copy (the vector iterator advanced by copy * width).
  std::vector<ExprP> shifted(const std::vector<ExprP>& idx);

  // Where a vector access of the current copy starts, and a vector loaded or
  // stored there (masked: only the tail's first tailLanes_ lanes).
  std::string vectorAddress(const std::string& tensor, const std::vector<ExprP>& idx);
  std::string loadAt(const std::string& address, bool masked);
  std::string storeAt(const std::string& address, const std::string& value, bool masked);
  bool tailCopy() const { return copy_ == maskedCopy_; }

  // A value in the vector loop: {text, is it a vector}.
  std::pair<std::string, bool> vectorValue(const ExprP& e, bool single);

  std::string asVector(const ExprP& e, bool single);

  void emitVectorStmt(const StmtP& s, int indent);

  // Reductions in loop f whose target does not move during f and that nothing
  // else in f touches live in vector registers for the whole loop.
  struct VectorRegister {
    std::string name;
    bool masked;  // holds the tail vector
    // A factored sum (LoopKind::cpu.factoredSums): the register starts at zero
    // and the element becomes `base + shared * register` after the loop.
    std::string base, shared;
  };
  // `starts`: constant stores just before f; a register for one of their
  // locations starts from the constant, and `used` lists (store, copy) pairs
  // that need no store.
  std::map<std::string, VectorRegister> promoteReductions(const For& f, int indent,
                                                          const std::vector<const Store*>& starts,
                                                          std::set<std::pair<std::string, int>>* used);

  // Vectors several statements of an innermost loop load alike, read once
  // per iteration, through a pointer to their row where only their last
  // index moves with the loop (nest_emitter_shared_loads.cpp).
  struct SharedLoad {
    const ir::Load* load;
    int copy;          // the vector copy whose address it is
    std::string text;  // the load as the body would print it
    int64_t step;      // elements its row advances per iteration of the loop; 0: no row pointer
    std::string row, name;
  };
  std::vector<SharedLoad> planSharedLoads(const For& f);
  void declareSharedRows(const For& f, std::vector<SharedLoad>& shared, int indent);
  void loadSharedVectors(const For& f, std::vector<SharedLoad>& shared, int indent);
  void releaseSharedLoads(std::vector<SharedLoad>& shared);

  // Scalars of an innermost loop's body read through one pointer per tensor
  // at constant displacements, and short loops unrolled outright
  // (nest_emitter_scalar_rows.cpp).
  struct ScalarRow {
    std::string name, base;                        // the pointer, and the load it points at
    std::map<std::string, std::string> displaced;  // a load's text -> `name[displacement]`
  };
  std::vector<ScalarRow> planScalarRows(const For& f);
  void declareScalarRows(const std::vector<ScalarRow>& rows, int indent);
  void releaseScalarRows(const std::vector<ScalarRow>& rows);
  void unrollIfShort(const For& f, int indent);

  // C (M x N) += op(A) (M x K) * op(B) (K x N), row-major, through CBLAS.
  void emitLibCall(const LibCall& c, int indent);

  void emitReduce(const Reduce& r, int indent);

  void emitStmt(const StmtP& s, int indent);
  void emitStore(const Store& st, int indent);
  void emitIf(const ir::If& i, int indent);
  // A scoped tensor (a loop-local one as its box): a C array in its memory
  // kind, filled with its initial value unless written before read, in a
  // block around its body.
  void emitVarDef(const ir::VarDef& v, int indent);
  // The body under `if (cond)`, else the failure recorded for the runtime (teml_fail).
  void emitAssert(const ir::Assert& a, int indent);
  static const ir::Assert* onlyACheck(const ir::For& f);
  void emitCheckLoop(const ir::For& f, const ir::Assert& check, const std::string& cvar, int indent);

  // Dispatch on node kinds (ir/functor.hpp) for emitStmt, vectorValue and
  // emitVectorStmt (expressions: codegen/c_expr); each forwards to the
  // emitter's methods.
  class ScalarStmt;
  class VectorExpr;
  class VectorStmt;
  // The per-kind parts of emitVectorStmt.
  void emitVectorStore(const Store& st, int indent);
  void emitVectorReduce(const Reduce& r, int indent);
  void emitVectorSeq(const ir::Seq& q, int indent);
  void emitVectorIf(const ir::If& i, int indent);
  void emitVectorFor(const For& f, int indent);

  const Program& program_;
  const target::Target& target_;
  Program view_;  // the program's tensors and the nest's tensors in scope
  std::map<std::string, std::string> tensorNames_;
  std::map<std::string, TensorDecl> localShapes_;  // the nest's tensors in scope, as C arrays
  std::map<std::string, const ir::LoopLocal*> prefetching_;  // cache copies in scope that fetch ahead
  bool streamed_ = false;  // non-temporal stores emitted, not yet fenced
  int hoistedIndices_ = 0;  // names of index loads read before their SIMD loops: teml.index0, ...
  CNames names_;
  std::vector<std::pair<std::string, std::string>> iterNames_;
  int pragmaLanesDepth_ = 0;  // enclosing loops left to GCC to vectorize (`#pragma omp simd`)
  std::map<std::string, Register> registers_;  // scalars in registers in scope
  std::string nestName_;
  const char* vectorType_ = nullptr;  // set while emitting an explicitly vectorized loop
  std::string vectorVar_;
  std::map<std::pair<std::string, int>, std::string> vectorRegs_;  // (reduction's id, copy) -> register
  std::map<std::string, ExprP> factoredTerms_;  // a factored sum's id -> what its register adds up
  std::map<std::string, std::string> sharedLoads_;  // a load's text -> the register it was loaded into
  std::map<std::string, std::string> scalarRows_;  // a scalar load's text -> its row pointer's element
  int vectorWidth_ = 0;
  int vectorCopies_ = 1;
  int copy_ = 0;
  int maskedCopy_ = -1;  // the copy that is the masked tail vector, if any
  int tailLanes_ = 0;    // its lanes
  std::vector<const Store*> startValues_;  // constant stores handed to the next loop
  int helperCount_ = 0;
  std::string helpers_;
  std::unique_ptr<std::ostringstream> out_ = std::make_unique<std::ostringstream>();
};

}  // namespace teml::codegen
