// Partial sums for a long reduction in SIMD lanes. `#pragma omp simd
// reduction(+:acc)` sums into one vector, so each iteration's add waits for
// the one before (an FMA's latency is 4 cycles on current cores, which issue
// two a cycle): a dot product of data in cache runs at an eighth of the FMA
// peak. A loop with a constant trip count of at least 16 vectors runs
// instead over blocks of 4 vectors, each lane of each vector adding into
// its own partial sum (four independent chains), the partial sums added
// once after the loop, and the last iterations as before. The order of the
// additions changes, as a SIMD reduction's already does.
//
// Floats' maxima and minima the same way, from NaN (fmax's identity): their
// compare, mask and select chain is longer than an add's (a softmax of 64
// rows of 1000 floats in cache: 38 -> 30 us). An order of maxima gives the
// same maximum, except which of +0 and -0.
//
// The blocks start where the largest tensor the loop streams through starts
// a vector on a line's edge; the iterations before run as the last ones do.
// NumPy's large arrays start 16 bytes past a 64-byte line, so each 64-byte
// load of gemv's rows touched two lines: 4000 x 4000 floats took 1.75 ms
// on one thread (AVX-512 EPYC), 1.26 ms with the arrays aligned. Rows whose
// length in bytes is a multiple of a vector, and inputs that start alike,
// all come onto an edge together. A loop that reads one vector a step on a
// core where loads off an edge cost no more starts at once (alignedStart).
#include "backend/cpu/nest_emitter.hpp"

#include <set>

#include "ir/accesses.hpp"
#include "ir/printer.hpp"

namespace teml::codegen {

using namespace ir;

namespace {
constexpr int64_t kIndependentVectors = 4;
constexpr int64_t kVectorsWorthIt = 16;

// `v`, or `v` plus or minus what does not use it.
bool stepsByOne(const ExprP& e, const std::string& v) {
  if (equal(e, var(v))) return true;
  if (e->kind != ExprKind::Binary) return false;
  auto& b = e->as<Binary>();
  if (b.op == BinOp::Add) return (stepsByOne(b.a, v) && !usesVar(b.b, v)) || (stepsByOne(b.b, v) && !usesVar(b.a, v));
  return b.op == BinOp::Sub && stepsByOne(b.a, v) && !usesVar(b.b, v);
}
}  // namespace

int64_t NestEmitter::partialSums(const For& f) {
  if (f.loopKind.threads() || !f.loopKind.lanes() || f.loopKind.cpu.vectorPlan.form != VectorForm::Pragma) return 0;
  if (f.step != 1 || f.loopKind.reductions.empty() || !f.loopKind.cpu.prefetches.empty()) return 0;
  int64_t trips = 0, lanes = 0;
  if (!constValue(sub(f.end, f.begin), &trips)) return 0;
  for (auto& r : f.loopKind.reductions) {
    auto reg = registers_.find(r.accumulator);
    if (reg == registers_.end()) return 0;
    if (r.op != ReduceOp::Add && r.op != ReduceOp::Max && r.op != ReduceOp::Min) return 0;
    if (reg->second.dtype != DType::F32 && reg->second.dtype != DType::F64) return 0;
    lanes = std::max<int64_t>(lanes, target_.lanes(reg->second.dtype));
  }
  if (lanes <= 1 || trips < kVectorsWorthIt * lanes) return 0;
  return kIndependentVectors * lanes;
}

void NestEmitter::emitPartialSums(const For& f, const std::string& cvar, int64_t parts, int indent) {
  std::string block = names_.claim(f.var + "_block"), lane = names_.claim(f.var + "_lane");
  std::string n = std::to_string(parts), end = expr(f.end, 0, false, false);
  line(indent, "{");
  std::map<std::string, std::string> partNames, refs, ops;  // accumulator -> its partial sums, its own name, operator
  std::string clauses;
  for (auto& r : f.loopKind.reductions) {
    Register& reg = registers_.at(r.accumulator);
    std::string part = names_.claim(reg.cname + "_part");
    line(indent + 1, std::string(cType(reg.dtype)) + " " + part + "[" + n + "] __attribute__((aligned(64)))" +
                         (r.op == ReduceOp::Add ? " = {0};" : ";"));
    if (r.op != ReduceOp::Add)
      line(indent + 1, "for (long " + lane + " = 0; " + lane + " < " + n + "; " + lane + "++) " + part + "[" + lane + "] = NAN;");
    partNames[r.accumulator] = part;
    refs[r.accumulator] = reg.ref;
    ops[r.accumulator] = clauseOperator(r);
    clauses += std::string(" reduction(") + clauseOperator(r) + ":" + tensorNames_.at(r.accumulator) + ")";
  }
  std::string start = alignedStart(f);
  line(indent + 1, "long " + block + " = " + (start.empty() ? expr(f.begin, 0, false, false) : start) + ";");
  if (!start.empty()) {
    line(indent + 1, "#pragma omp simd" + clauses);
    line(indent + 1, "for (long " + cvar + " = " + expr(f.begin, 0, false, false) + "; " + cvar + " < " + block + "; " +
                         cvar + "++) {");
    emitStmt(f.body, indent + 2);
    line(indent + 1, "}");
  }
  line(indent + 1, "for (; " + block + " <= " + end + " - " + n + "; " + block + " += " + n + ") {");
  line(indent + 2, "#pragma omp simd");
  line(indent + 2, "for (long " + lane + " = 0; " + lane + " < " + n + "; " + lane + "++) {");
  iterNames_.push_back({f.var, "(" + block + " + " + lane + ")"});
  for (auto& [acc, part] : partNames) registers_.at(acc).ref = part + "[" + lane + "]";
  emitStmt(f.body, indent + 3);
  for (auto& [acc, ref] : refs) registers_.at(acc).ref = ref;
  iterNames_.pop_back();
  line(indent + 2, "}");
  line(indent + 1, "}");
  line(indent + 1, "#pragma omp simd" + clauses);
  line(indent + 1, "for (long " + cvar + " = " + block + "; " + cvar + " < " + end + "; " + cvar + "++) {");
  emitStmt(f.body, indent + 2);
  line(indent + 1, "}");
  for (auto& [acc, part] : partNames) {
    const std::string& op = ops.at(acc);
    std::string combine = op == "+" ? refs.at(acc) + " += " + part + "[" + lane + "];"
                                    : refs.at(acc) + " = " + op + "(" + refs.at(acc) + ", " + part + "[" + lane + "]);";
    line(indent + 1, "#pragma omp simd reduction(" + op + ":" + tensorNames_.at(acc) + ")");
    line(indent + 1, "for (long " + lane + " = 0; " + lane + " < " + n + "; " + lane + "++) " + combine);
    names_.release(part);
  }
  line(indent, "}");
  names_.release(lane);
  names_.release(block);
}

// The first iteration at or after f's start where the largest tensor read
// with unit stride along f starts a vector on a vector's boundary (no later
// than f's end), as C; empty when no read qualifies.
std::string NestEmitter::alignedStart(const For& f) {
  const Access* widest = nullptr;
  int64_t widestBytes = 0;
  std::vector<Access> reads;
  std::set<std::string> streams;  // the unit-stride reads, each access once
  for (auto& a : accessesOf(f.body, AccessOptions{false, false, false}))
    if (a.kind == AccessKind::Read) reads.push_back(a);
  for (auto& a : reads) {
    const TensorDecl* d = view_.find(a.tensor);
    if (!d || d->mem != MemKind::Heap || a.indices.empty() || d->shape.size() != a.indices.size()) continue;
    bool unitStride = stepsByOne(a.indices.back(), f.var);
    for (size_t k = 0; k + 1 < a.indices.size(); ++k) unitStride &= !usesVar(a.indices[k], f.var);
    int64_t b = d->elementCount() * ir::bytes(d->dtype);
    std::string key = a.tensor;
    for (auto& i : a.indices) key += "[" + toString(i) + "]";
    if (unitStride) streams.insert(key);
    if (unitStride && b > widestBytes) widest = &a, widestBytes = b;
  }
  if (!widest) return "";
  // On a core where a load off a line's edge costs no more (Target::
  // misalignedLoadsCost), a loop that streams one vector a step gains
  // nothing from starting on an edge and pays for the iterations before
  // (AMD Zen 4, generated kernels in C in turns on rows 16 bytes past an
  // edge: row sums of 4096 floats 3.01 -> 2.68 ms, layer norm 1.29 -> 1.13
  // ms); one that loads several still gains (gemv's four rows and x: 3.25
  // ms with the iterations before, 3.56 without).
  if (!target_.misalignedLoadsCost() && streams.size() < 2) return "";
  const TensorDecl* d = view_.find(widest->tensor);
  std::string begin = expr(f.begin, 0, false, false), end = expr(f.end, 0, false, false);
  iterNames_.push_back({f.var, "(" + begin + ")"});
  std::string at = "(uintptr_t)&" + access(widest->tensor, widest->indices);
  iterNames_.pop_back();
  std::string size = std::to_string(ir::bytes(d->dtype)), edge = std::to_string(target_.vectorBytes);
  // Elements to the edge; none where the address is not a whole number of elements past one.
  std::string ahead = "(" + at + " % " + size + " ? 0 : (" + edge + " - " + at + " % " + edge + ") % " + edge + " / " +
                      size + ")";
  return "teml_min(" + begin + " + " + ahead + ", " + end + ")";
}

}  // namespace teml::codegen
