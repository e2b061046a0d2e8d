// Several short sums side by side: a loop unrolled and jammed around a dot
// product (score[j], score[j + 1], ... each summed over d). With `#pragma omp
// simd reduction(+:...)` GCC sums each accumulator's vector across its lanes
// on its own after the loop, about thirty instructions each, where a
// 64-element dot product is four FMAs. Here each accumulator sums into its
// own vector of lanes, and the vectors are summed across lanes together:
// two vectors fold into one (each half of a group of lanes added to the
// other), until one vector holds every accumulator's partial sums in groups
// of lanes, then each group sums within itself. Four accumulators of 16
// lanes take 5 shuffle-and-add steps instead of 4 x 4; one sum alone (SDDMM's
// dot product per nonzero) takes 4. The order of the additions changes, as a
// SIMD reduction's already does.
//
// Where the body is plain arithmetic on rows read with unit stride, it is
// written in explicit vectors, with the shared loads of explicit vector
// loops (nest_emitter_shared_loads.cpp): GCC's own vectorization of eight
// jammed dot products (attention's scores, four query rows by two key rows)
// reloaded each row for every FMA, and ran slower than four.
#include "backend/cpu/nest_emitter.hpp"

#include "ir/affine.hpp"
#include "ir/mutator.hpp"
#include "ir/visitor.hpp"

namespace teml::codegen {

using namespace ir;

namespace {
constexpr int64_t kVectorsWorthPartialSums = 16;  // from there on, emitPartialSums
// ... unless this many sums or more run side by side: their chains are
// already independent, and four vectors of partial sums each would not fit
// in the registers (sixteen jammed dot products of 384 floats, x.grad = y.grad
// w^T in an MLP layer's gradient: 64 vectors, spilled).
constexpr size_t kSumsSideBySide = 8;

// A vector literal of lane indices for __builtin_shuffle.
std::string indices(const std::string& type, const std::vector<int64_t>& lanes) {
  std::string s = "(" + type + "){";
  for (size_t k = 0; k < lanes.size(); ++k) s += (k ? "," : "") + std::to_string(lanes[k]);
  return s + "}";
}
}  // namespace

int64_t NestEmitter::jointSums(const For& f) {
  if (f.loopKind.threads() || !f.loopKind.lanes() || f.loopKind.cpu.vectorPlan.form != VectorForm::Pragma) return 0;
  if (f.step != 1 || f.loopKind.reductions.empty() || !f.loopKind.cpu.prefetches.empty()) return 0;
  int64_t trips = 0, lanes = 0;
  if (!constValue(sub(f.end, f.begin), &trips)) return 0;
  std::optional<DType> dtype;
  for (auto& r : f.loopKind.reductions) {
    auto reg = registers_.find(r.accumulator);
    if (r.op != ReduceOp::Add || reg == registers_.end()) return 0;
    if (reg->second.dtype != DType::F32 && reg->second.dtype != DType::F64) return 0;
    if (dtype && *dtype != reg->second.dtype) return 0;
    dtype = reg->second.dtype;
  }
  lanes = target_.lanes(*dtype);
  if (lanes <= 1 || (lanes & (lanes - 1)) || trips % lanes) return 0;
  if (trips >= kVectorsWorthPartialSums * lanes && f.loopKind.reductions.size() < kSumsSideBySide) return 0;
  if (static_cast<int64_t>(f.loopKind.reductions.size()) > lanes) return 0;
  return lanes;
}

namespace {

// Sums of plain arithmetic whose vector reads along `var` are rows of
// `dtype`, unit stride, at affine indices; anything else marks it not plain.
class PlainSums : public Visitor {
 public:
  PlainSums(const For& f, DType dtype, const Program& view) : f_(f), dtype_(dtype), view_(view) {
    for (auto& r : f.loopKind.reductions) accumulators_.insert(r.accumulator);
  }
  bool plain = true;

 protected:
  void visitReduce(const Reduce& r) override {
    plain &= r.op == ReduceOp::Add && r.indices.empty() && accumulators_.count(r.tensor) > 0;
    visit(r.value);
  }
  void visitStore(const Store&) override { plain = false; }
  void visitFor(const For&) override { plain = false; }
  void visitIf(const If&) override { plain = false; }
  void visitAssert(const Assert&) override { plain = false; }
  void visitVarDef(const VarDef&) override { plain = false; }
  void visitLibCall(const LibCall&) override { plain = false; }
  void visitBarrier(const Barrier&) override { plain = false; }
  void visitExchange(const Exchange&) override { plain = false; }
  void visitBinary(const Binary& b) override {
    plain &= b.op == BinOp::Add || b.op == BinOp::Sub || b.op == BinOp::Mul || b.op == BinOp::Div;
    Visitor::visitBinary(b);
  }
  void visitUnary(const Unary&) override { plain = false; }
  void visitCast(const Cast&) override { plain = false; }
  void visitSelect(const Select&) override { plain = false; }
  void visitLoad(const Load& l) override {
    // A read along `var` at any subscript, not only the last: B[d, j] over d is strided, not a broadcast.
    bool moves = false;
    for (auto& i : l.indices) moves = moves || usesVar(i, f_.var);
    if (!moves) return;
    const TensorDecl* d = view_.find(l.tensor);
    Affine last;
    plain &= d && d->dtype == dtype_ && d->shape.size() == l.indices.size() && toAffine(l.indices.back(), &last) &&
             last.coeff(f_.var) == 1;
    for (size_t k = 0; k + 1 < l.indices.size(); ++k) plain &= !usesVar(l.indices[k], f_.var);
  }

 private:
  const For& f_;
  DType dtype_;
  const Program& view_;
  std::set<std::string> accumulators_;
};

}  // namespace

// f's body is only sums into its accumulators of values whose vector reads
// are rows of the accumulators' type along f, unit stride, at affine indices.
bool NestEmitter::jointSumsAsVectors(const For& f, DType dtype) {
  PlainSums sums(f, dtype, view_);
  sums.visit(f.body);
  return sums.plain;
}

void NestEmitter::emitJointSums(const For& f, int64_t lanes, int indent) {
  std::string block = names_.claim(f.var + "_block"), lane = names_.claim(f.var + "_lane");
  std::string n = std::to_string(lanes);
  DType dtype = registers_.at(f.loopKind.reductions[0].accumulator).dtype;
  std::string vec = dtype == DType::F64 ? "teml_vd" : "teml_vf";
  bool asVectors = jointSumsAsVectors(f, dtype);
  line(indent, "{");
  std::vector<std::string> accs, parts, refs;
  for (auto& r : f.loopKind.reductions) {
    Register& reg = registers_.at(r.accumulator);
    std::string part = names_.claim(reg.cname + "_lanes");
    if (asVectors)
      line(indent + 1, vec + " " + part + " = {0};");
    else
      line(indent + 1, std::string(cType(dtype)) + " " + part + "[" + n + "] __attribute__((aligned(64))) = {0};");
    accs.push_back(r.accumulator);
    parts.push_back(part);
    refs.push_back(reg.ref);
  }
  if (asVectors) {
    emitJointSumsInVectors(f, block, lanes, accs, parts, indent + 1);
  } else {
    line(indent + 1, "for (long " + block + " = " + expr(f.begin, 0, false, false) + "; " + block + " < " +
                         expr(f.end, 0, false, false) + "; " + block + " += " + n + ") {");
    line(indent + 2, "#pragma omp simd");
    line(indent + 2, "for (long " + lane + " = 0; " + lane + " < " + n + "; " + lane + "++) {");
    iterNames_.push_back({f.var, "(" + block + " + " + lane + ")"});
    for (size_t k = 0; k < accs.size(); ++k) registers_.at(accs[k]).ref = parts[k] + "[" + lane + "]";
    emitStmt(f.body, indent + 3);
    for (size_t k = 0; k < accs.size(); ++k) registers_.at(accs[k]).ref = refs[k];
    iterNames_.pop_back();
    line(indent + 2, "}");
    line(indent + 1, "}");
  }

  // The sums across lanes. A vector holds its accumulators' partial sums in
  // equal groups of lanes, in the order of `groups` (-1: padding).
  std::string mask = names_.claim("lane_order");
  line(indent + 1, "typedef " + std::string(dtype == DType::F64 ? "long" : "int") + " " + mask +
                       " __attribute__((vector_size(" + std::to_string(target_.vectorBytes) + ")));");
  struct Vector {
    std::string name;
    std::vector<int> groups;
  };
  std::vector<Vector> vectors;
  size_t count = 1;
  while (count < accs.size()) count *= 2;
  for (size_t k = 0; k < count; ++k) {
    std::string v = names_.claim("lane_sums");
    std::string from = k >= accs.size() ? "(" + vec + "){0}" : asVectors ? parts[k] : "*(" + vec + " *)" + parts[k];
    line(indent + 1, vec + " " + v + " = " + from + ";");
    vectors.push_back({v, {k < accs.size() ? static_cast<int>(k) : -1}});
  }
  while (vectors.size() > 1) {
    std::vector<Vector> next;
    for (size_t k = 0; k < vectors.size(); k += 2) {
      const Vector &a = vectors[k], &b = vectors[k + 1];
      int64_t groups = static_cast<int64_t>(a.groups.size()), width = lanes / groups;
      // Output group p (width / 2 lanes) is group p of a, then of b, its halves added.
      std::vector<int64_t> low, high;
      for (int64_t p = 0; p < 2 * groups; ++p)
        for (int64_t l = 0; l < width / 2; ++l) {
          int64_t start = (p < groups ? 0 : lanes) + (p % groups) * width;
          low.push_back(start + l);
          high.push_back(start + width / 2 + l);
        }
      line(indent + 1, a.name + " = __builtin_shuffle(" + a.name + ", " + b.name + ", " + indices(mask, low) +
                           ") + __builtin_shuffle(" + a.name + ", " + b.name + ", " + indices(mask, high) + ");");
      Vector joined{a.name, a.groups};
      joined.groups.insert(joined.groups.end(), b.groups.begin(), b.groups.end());
      names_.release(b.name);
      next.push_back(std::move(joined));
    }
    vectors = std::move(next);
  }
  const Vector& sums = vectors[0];
  int64_t width = lanes / static_cast<int64_t>(sums.groups.size());
  for (int64_t step = width / 2; step >= 1; step /= 2) {
    std::vector<int64_t> partner;
    for (int64_t l = 0; l < lanes; ++l) partner.push_back(l ^ step);
    line(indent + 1, sums.name + " += __builtin_shuffle(" + sums.name + ", " + indices(mask, partner) + ");");
  }
  for (size_t g = 0; g < sums.groups.size(); ++g)
    if (sums.groups[g] >= 0)
      line(indent + 1, refs[static_cast<size_t>(sums.groups[g])] + " += " + sums.name + "[" +
                           std::to_string(static_cast<int64_t>(g) * width) + "];");
  names_.release(sums.name);
  names_.release(mask);
  for (auto& p : parts) names_.release(p);
  line(indent, "}");
  names_.release(lane);
  names_.release(block);
}

// The loop over whole vectors, each sum into a vector of its own (`parts`).
void NestEmitter::emitJointSumsInVectors(const For& f, const std::string& block, int64_t lanes,
                                         const std::vector<std::string>& accs, const std::vector<std::string>& parts,
                                         int indent) {
  auto savedType = vectorType_;
  auto savedVar = vectorVar_;
  auto savedWidth = vectorWidth_, savedCopies = vectorCopies_, savedMasked = maskedCopy_, savedTail = tailLanes_;
  DType dtype = registers_.at(accs[0]).dtype;
  vectorType_ = dtype == DType::F64 ? "teml_vd" : "teml_vf";
  vectorVar_ = f.var;
  vectorWidth_ = static_cast<int>(lanes);
  vectorCopies_ = 1, maskedCopy_ = -1, tailLanes_ = 0;
  std::vector<std::string> ids;
  forEachStmt(f.body, [&](const StmtP& s) {
    if (s->kind != StmtKind::Reduce) return;
    for (size_t k = 0; k < accs.size(); ++k)
      if (s->as<Reduce>().tensor == accs[k]) vectorRegs_[{s->id, 0}] = parts[k], ids.push_back(s->id);
  });
  iterNames_.push_back({f.var, block});
  auto shared = planSharedLoads(f);
  declareSharedRows(f, shared, indent);
  line(indent, "for (long " + block + " = " + expr(f.begin, 0, false, false) + "; " + block + " < " +
                   expr(f.end, 0, false, false) + "; " + block + " += " + std::to_string(lanes) + ") {");
  loadSharedVectors(f, shared, indent + 1);
  emitVectorStmt(f.body, indent + 1);
  line(indent, "}");
  releaseSharedLoads(shared);
  iterNames_.pop_back();
  for (auto& id : ids) vectorRegs_.erase({id, 0});
  vectorType_ = savedType;
  vectorVar_ = savedVar;
  vectorWidth_ = savedWidth, vectorCopies_ = savedCopies, maskedCopy_ = savedMasked, tailLanes_ = savedTail;
}

}  // namespace teml::codegen
