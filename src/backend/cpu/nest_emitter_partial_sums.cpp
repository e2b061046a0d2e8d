// Partial sums for a long reduction in SIMD lanes. `#pragma omp simd
// reduction(+:acc)` sums into one vector, so each iteration's add waits for
// the one before (an FMA's latency is 4 cycles on current cores, which issue
// two a cycle): a dot product of data in cache runs at an eighth of the FMA
// peak. A loop with a constant trip count of at least 16 vectors runs
// instead over blocks of 4 vectors, each lane of each vector adding into
// its own partial sum (four independent chains), the partial sums added
// once after the loop, and the last iterations as before. The order of the
// additions changes, as a SIMD reduction's already does.
#include "backend/cpu/nest_emitter.hpp"

namespace teml::codegen {

using namespace ir;

namespace {
constexpr int64_t kIndependentVectors = 4;
constexpr int64_t kVectorsWorthIt = 16;
}  // namespace

int64_t NestEmitter::partialSums(const For& f) {
  if (f.loopKind.threads() || !f.loopKind.lanes() || f.loopKind.cpu.vectorPlan.form != VectorForm::Pragma) return 0;
  if (f.step != 1 || f.loopKind.reductions.empty() || !f.loopKind.cpu.prefetches.empty()) return 0;
  int64_t trips = 0, lanes = 0;
  if (!constValue(sub(f.end, f.begin), &trips)) return 0;
  for (auto& r : f.loopKind.reductions) {
    auto reg = registers_.find(r.accumulator);
    if (r.op != ReduceOp::Add || reg == registers_.end()) return 0;
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
  std::map<std::string, std::string> partNames, refs;  // accumulator -> its partial sums, its own name
  std::string clauses;
  for (auto& r : f.loopKind.reductions) {
    Register& reg = registers_.at(r.accumulator);
    std::string part = names_.claim(reg.cname + "_part");
    line(indent + 1, std::string(cType(reg.dtype)) + " " + part + "[" + n + "] __attribute__((aligned(64))) = {0};");
    partNames[r.accumulator] = part;
    refs[r.accumulator] = reg.ref;
    clauses += " reduction(+:" + tensorNames_.at(r.accumulator) + ")";
  }
  line(indent + 1, "long " + block + " = " + expr(f.begin, 0, false, false) + ";");
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
    line(indent + 1, "#pragma omp simd reduction(+:" + tensorNames_.at(acc) + ")");
    line(indent + 1, "for (long " + lane + " = 0; " + lane + " < " + n + "; " + lane + "++) " + refs.at(acc) + " += " +
                         part + "[" + lane + "];");
    names_.release(part);
  }
  line(indent, "}");
  names_.release(lane);
  names_.release(block);
}

}  // namespace teml::codegen
