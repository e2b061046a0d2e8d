// Explicit vector code (GCC vector extensions) for the vector plans the
// lowering stage wrote into the IR (lowering/vector_plans), and
// non-temporal stores where a plan says so.
#include "ir/index_patterns.hpp"
#include "codegen/c_text.hpp"
#include "backend/cpu/nest_emitter.hpp"
#include "diag/diagnostics.hpp"
#include "ir/accesses.hpp"
#include "ir/mutator.hpp"
#include "ir/printer.hpp"

namespace teml::codegen {

using namespace ir;


// A plan at half width runs as written, or in calls where the tested
// tensors do not all start on a vector boundary (lowering/cpu/half_vectors).
void NestEmitter::emitVectorLoop(const For& f, const std::string& cvar, int indent) {
  const VectorPlan& plan = f.loopKind.cpu.vectorPlan;
  if (plan.half == HalfWidth::Never) return emitVectorLoopAs(f, plan, cvar, indent);
  VectorPlan half = plan;
  half.width = plan.width / 2;
  half.tailLanes = 0;
  if (plan.half == HalfWidth::Always) return emitVectorLoopAs(f, half, cvar, indent);
  std::string bases;
  for (auto& t : plan.alignmentTested) {
    const TensorDecl* decl = program_.find(t);
    std::vector<ExprP> origin(decl ? decl->shape.size() : 0, intConst(0));
    bases += std::string(bases.empty() ? "" : " | ") + "(uintptr_t)&" + access(t, origin);
  }
  line(indent, "if (((" + bases + ") % " + std::to_string(target_.vectorBytes) + ") == 0) {");
  emitVectorLoopAs(f, plan, cvar, indent + 1);
  line(indent, "} else {");
  emitVectorLoopAs(f, half, cvar, indent + 1);
  line(indent, "}");
}

// Lane 0 of a vector is the element at the chunk's first iteration; the
// loop steps by whole vectors and a scalar loop runs the remainder.
void NestEmitter::emitVectorLoopAs(const For& f, const VectorPlan& plan, const std::string& cvar, int indent) {
  bool half = plan.width * bytes(plan.dtype) < target_.vectorBytes;
  vectorType_ = plan.dtype == DType::F64 ? (half ? "teml_vd_half" : "teml_vd") : (half ? "teml_vf_half" : "teml_vf");
  vectorVar_ = f.var;
  vectorWidth_ = plan.width;
  int64_t chunks = plan.span / plan.width, mainSpan = chunks * plan.width;
  ExprP mainEnd = add(f.begin, intConst(mainSpan));
  tailLanes_ = plan.tailLanes;
  int64_t scalarFrom = tailLanes_ > 0 ? plan.span : mainSpan;
  if (plan.form == VectorForm::Jammed) {
    // One copy of the body per vector, jammed into the inner loops so that
    // they share what they load; the tail is the last copy.
    vectorCopies_ = static_cast<int>(chunks) + (tailLanes_ > 0);
    maskedCopy_ = tailLanes_ > 0 ? static_cast<int>(chunks) : -1;
    line(indent, "{");
    line(indent + 1, "long " + cvar + " = " + expr(f.begin, 0, false, false) + ";");
    emitVectorStmt(f.body, indent + 1);
    line(indent, "}");
  } else if (plan.form == VectorForm::Streaming) {
    emitStreamingLoop(f, f.body->as<Store>(), cvar, plan, indent);
    return;
  } else {
    vectorCopies_ = 1;
    maskedCopy_ = -1;
    line(indent, "for (long " + cvar + " = " + expr(f.begin, 0, false, false) + "; " + cvar + " < " +
                     expr(mainEnd, 3, true, false) + "; " + cvar + " += " + std::to_string(plan.width) + ") {");
    emitVectorStmt(f.body, indent + 1);
    line(indent, "}");
    if (tailLanes_ > 0) {
      maskedCopy_ = 0;
      line(indent, "{");
      line(indent + 1, "long " + cvar + " = " + expr(mainEnd, 0, false, false) + ";");
      emitVectorStmt(f.body, indent + 1);
      line(indent, "}");
    }
  }
  vectorType_ = nullptr;
  maskedCopy_ = -1;
  tailLanes_ = 0;
  if (scalarFrom != plan.span) {
    line(indent, "for (long " + cvar + " = " + expr(add(f.begin, intConst(scalarFrom)), 0, false, false) + "; " + cvar +
                     " < " + expr(f.end, 3, true, false) + "; " + cvar + "++) {");
    emitStmt(f.body, indent + 1);
    line(indent, "}");
  }
}

void NestEmitter::emitStreamingLoop(const For& f, const Store& st, const std::string& cvar, const VectorPlan& plan, int indent) {
  std::string w = std::to_string(plan.width), end = expr(f.end, 3, true, false);
  std::string aligned = plan.dtype == DType::F64 ? "teml_vd_aligned" : "teml_vf_aligned";
  line(indent, "{");
  line(indent + 1, "long " + cvar + " = " + expr(f.begin, 0, false, false) + ";");
  auto saved = vectorType_;
  vectorType_ = nullptr;
  line(indent + 1, "for (; " + cvar + " < " + end + " && ((unsigned long)&" + access(st.tensor, st.indices) + ") % " +
                       std::to_string(target_.vectorBytes) + " != 0; " + cvar + "++) {");
  emitStmt(f.body, indent + 2);
  line(indent + 1, "}");
  vectorType_ = saved;
  vectorCopies_ = 1;
  line(indent + 1, "for (; " + cvar + " + " + w + " <= " + end + "; " + cvar + " += " + w + ") {");
  line(indent + 2, std::string(plan.dtype == DType::F64 ? "teml_stream_vd(" : "teml_stream_vf(") + "&" +
                       access(st.tensor, st.indices) + ", (" + aligned + ")" + asVector(st.value, isSingle(st.tensor)) + ");");
  line(indent + 1, "}");
  vectorType_ = nullptr;
  line(indent + 1, "for (; " + cvar + " < " + end + "; " + cvar + "++) {");
  emitStmt(f.body, indent + 2);
  line(indent + 1, "}");
  streamed_ = true;
  line(indent, "}");
}

std::vector<ExprP> NestEmitter::shifted(const std::vector<ExprP>& idx) {
  if (copy_ == 0) return idx;
  std::vector<ExprP> out;
  for (auto& i : idx) out.push_back(substitute(i, {{vectorVar_, add(var(vectorVar_), intConst(copy_ * vectorWidth_))}}));
  return out;
}

std::string NestEmitter::vectorAddress(const std::string& tensor, const std::vector<ExprP>& idx) {
  return "&" + access(tensor, shifted(idx));
}

std::string NestEmitter::loadAt(const std::string& address, bool masked) {
  if (masked) return "teml_mload_" + std::string(vectorType_ + 5) + "(" + address + ", " + std::to_string(tailLanes_) + ")";
  return "*(" + std::string(vectorType_) + " *)" + address;
}

std::string NestEmitter::storeAt(const std::string& address, const std::string& value, bool masked) {
  if (masked)
    return "teml_mstore_" + std::string(vectorType_ + 5) + "(" + address + ", " + value + ", " + std::to_string(tailLanes_) + ");";
  return "*(" + std::string(vectorType_) + " *)" + address + " = " + value + ";";
}

class NestEmitter::VectorExpr : public ExprFunctor<std::pair<std::string, bool>(bool)> {
 public:
  explicit VectorExpr(NestEmitter& e) : e_(e) {}
  std::pair<std::string, bool> of(const ExprP& e, bool single) { return dispatch(e, single); }

 private:
  std::pair<std::string, bool> visitLoad(const Load& l, bool) override {
    if (variesWith(l.indices, e_.vectorVar_)) {
      std::string text = e_.loadAt(e_.vectorAddress(l.tensor, l.indices), e_.tailCopy());
      auto shared = e_.sharedLoads_.find(text);
      return {shared != e_.sharedLoads_.end() ? shared->second : "(" + text + ")", true};
    }
    std::string text = e_.access(l.tensor, e_.shifted(l.indices));
    auto row = e_.scalarRows_.find(text);
    return {row != e_.scalarRows_.end() ? row->second : text, false};
  }
  std::pair<std::string, bool> visitBinary(const Binary& b, bool single) override {
    auto x = of(b.a, single), y = of(b.b, single);
    return {"(" + x.first + " " + binOpName(b.op) + " " + y.first + ")", x.second || y.second};
  }
  // Constants and iterators are the same in every lane.
  std::pair<std::string, bool> visitIntConst(const IntConst& c, bool) override { return {std::to_string(c.value), false}; }
  std::pair<std::string, bool> visitFloatConst(const FloatConst& c, bool single) override {
    return {floatLiteral(c.value, single), false};
  }
  std::pair<std::string, bool> visitVar(const Var& v, bool) override { return {e_.iterName(v.name), false}; }
  // The vector planner (lowering/vector_plans) refuses loops that compute these.
  std::pair<std::string, bool> visitUnary(const Unary&, bool) override { return unplanned(); }
  std::pair<std::string, bool> visitCast(const Cast&, bool) override { return unplanned(); }
  std::pair<std::string, bool> visitSelect(const Select&, bool) override { return unplanned(); }
  [[noreturn]] static std::pair<std::string, bool> unplanned() {
    throw InternalError("code generation: an operation without a vector form in an explicitly vectorized loop");
  }

  NestEmitter& e_;
};

std::pair<std::string, bool> NestEmitter::vectorValue(const ExprP& e, bool single) { return VectorExpr(*this).of(e, single); }

std::string NestEmitter::asVector(const ExprP& e, bool single) {
  auto v = vectorValue(e, single);
  return v.second ? v.first : "((" + std::string(vectorType_) + "){0} + " + v.first + ")";
}

class NestEmitter::VectorStmt : public StmtFunctor<void(int)> {
 public:
  explicit VectorStmt(NestEmitter& e) : e_(e) {}
  void emit(const StmtP& s, int indent) { dispatch(s, indent); }

 private:
  void visitStore(const Store& st, int indent) override { e_.emitVectorStore(st, indent); }
  void visitReduce(const Reduce& r, int indent) override { e_.emitVectorReduce(r, indent); }
  void visitSeq(const Seq& q, int indent) override { e_.emitVectorSeq(q, indent); }
  void visitFor(const For& f, int indent) override { e_.emitVectorFor(f, indent); }
  void visitIf(const If& i, int indent) override { e_.emitVectorIf(i, indent); }
  void visitLibCall(const LibCall&, int) override { refuse(); }
  void visitVarDef(const VarDef&, int) override { refuse(); }
  void visitAssert(const Assert&, int) override { refuse(); }
  void visitBarrier(const Barrier&, int) override { refuse(); }
  void visitExchange(const Exchange&, int) override { refuse(); }
  [[noreturn]] static void refuse() {
    throw InternalError("code generation: a call or tensor definition in an explicitly vectorized loop");
  }

  NestEmitter& e_;
};

void NestEmitter::emitVectorStmt(const StmtP& s, int indent) { VectorStmt(*this).emit(s, indent); }

void NestEmitter::emitVectorStore(const Store& st, int indent) {
  for (copy_ = 0; copy_ < vectorCopies_; ++copy_)
    line(indent, storeAt(vectorAddress(st.tensor, st.indices), asVector(st.value, isSingle(st.tensor)), tailCopy()));
  copy_ = 0;
}

void NestEmitter::emitVectorReduce(const Reduce& r, int indent) {
  for (copy_ = 0; copy_ < vectorCopies_; ++copy_) {
    auto reg = vectorRegs_.find({r.id, copy_});
    std::string op = r.op == ReduceOp::Add ? "+" : "*", value = asVector(r.value, isSingle(r.tensor));
    if (reg != vectorRegs_.end()) {
      auto term = factoredTerms_.find(r.id);
      if (term != factoredTerms_.end()) value = asVector(term->second, isSingle(r.tensor));
      line(indent, reg->second + " " + op + "= " + value + ";");
    } else {
      std::string at = vectorAddress(r.tensor, r.indices);
      line(indent, storeAt(at, "(" + loadAt(at, tailCopy()) + ") " + op + " " + value, tailCopy()));
    }
  }
  copy_ = 0;
}

// A guard the same in every lane (vector_plans.cpp): one scalar test for the
// vectors under it.
void NestEmitter::emitVectorIf(const If& i, int indent) {
  line(indent, "if (" + expr(i.cond, 0, false, false) + ") {");
  emitVectorStmt(i.then, indent + 1);
  if (i.otherwise) {
    line(indent, "} else {");
    emitVectorStmt(i.otherwise, indent + 1);
  }
  line(indent, "}");
}

void NestEmitter::emitVectorSeq(const Seq& q, int indent) {
  // Constant stores right before a loop (a sum's starting value) are
  // handed to it: a sum kept in a register starts from the constant
  // instead of storing it and loading it back.
  auto& stmts = q.stmts;
  for (size_t i = 0; i < stmts.size(); ++i) {
    size_t j = i;
    while (j < stmts.size() && stmts[j]->kind == StmtKind::Store &&
           stmts[j]->as<Store>().value->kind == ExprKind::FloatConst)
      ++j;
    if (j > i && j < stmts.size() && stmts[j]->kind == StmtKind::For) {
      for (size_t k = i; k < j; ++k) startValues_.push_back(static_cast<const Store*>(stmts[k].get()));
      i = j;
    }
    emitVectorStmt(stmts[i], indent);
  }
}

void NestEmitter::emitVectorFor(const For& f, int indent) {
  // Sums kept in registers are declared in a block of their own: a loop
  // beside this one (an unrolled loop's remainder) declares its sums under
  // the same names (fuzz seed 8758).
  const bool block = !f.loopKind.cpu.registerSums.empty();
  if (block) line(indent++, "{");
  std::vector<const Store*> starts;
  starts.swap(startValues_);
  std::set<std::pair<std::string, int>> used;  // (store id, copy)
  auto promoted = promoteReductions(f, indent, starts, &used);
  for (auto* st : starts)
    for (copy_ = 0; copy_ < vectorCopies_; ++copy_)
      if (!used.count({st->id, copy_}))
        line(indent, storeAt(vectorAddress(st->tensor, st->indices), asVector(st->value, isSingle(st->tensor)), tailCopy()));
  copy_ = 0;
  std::string cvar = names_.claim(f.var);
  iterNames_.push_back({f.var, cvar});
  auto shared = planSharedLoads(f);
  declareSharedRows(f, shared, indent);
  unrollIfShort(f, indent);
  line(indent, loopHeader(f, cvar));
  loadSharedVectors(f, shared, indent + 1);
  auto scalarRows = planScalarRows(f);
  declareScalarRows(scalarRows, indent + 1);
  // What later iterations read through indices from data, for each vector of the copy.
  for (copy_ = 0; copy_ < vectorCopies_ && !f.loopKind.cpu.prefetches.empty(); ++copy_)
    emitPrefetches(f, indent + 1, true);
  copy_ = 0;
  emitVectorStmt(f.body, indent + 1);
  line(indent, "}");
  releaseSharedLoads(shared);
  releaseScalarRows(scalarRows);
  iterNames_.pop_back();
  names_.release(cvar);
  for (auto& [where, reg] : promoted) {
    std::string value = reg.shared.empty() ? reg.name : "(" + reg.base + ") + (" + reg.shared + ") * " + reg.name;
    line(indent, storeAt(where, value, reg.masked));
    names_.release(reg.name);
  }
  for (auto& sum : f.loopKind.cpu.factoredSums) factoredTerms_.erase(sum.id);
  for (auto it = vectorRegs_.begin(); it != vectorRegs_.end();) {
    bool mine = false;
    for (auto& [where, reg] : promoted) mine |= reg.name == it->second;
    it = mine ? vectorRegs_.erase(it) : std::next(it);
  }
  if (block) line(--indent, "}");
}

std::map<std::string, NestEmitter::VectorRegister> NestEmitter::promoteReductions(
    const For& f, int indent, const std::vector<const Store*>& starts, std::set<std::pair<std::string, int>>* used) {
  std::vector<const Reduce*> reduces;
  std::set<std::string> ids(f.loopKind.cpu.registerSums.begin(), f.loopKind.cpu.registerSums.end());
  forEachStmt(f.body, [&](const StmtP& s) {
    if (s->kind == StmtKind::Reduce && ids.count(s->id)) reduces.push_back(static_cast<const Reduce*>(s.get()));
  });
  if (reduces.size() != ids.size()) throw InternalError("code generation: loop '" + f.id + "' keeps sums it does not hold");
  std::map<std::string, VectorRegister> promoted;  // address -> register
  // One register per element: mixed operations on an element are left in memory.
  std::map<std::string, std::set<ReduceOp>> opsAt;
  for (auto* r : reduces)
    for (copy_ = 0; copy_ < vectorCopies_; ++copy_) opsAt[vectorAddress(r->tensor, r->indices)].insert(r->op);
  for (auto* r : reduces) {
    const FactoredSum* split = nullptr;
    for (auto& sum : f.loopKind.cpu.factoredSums)
      if (sum.id == r->id) split = &sum;
    if (split) factoredTerms_[r->id] = split->varying;
    for (copy_ = 0; copy_ < vectorCopies_; ++copy_) {
      std::string where = vectorAddress(r->tensor, r->indices);
      if (opsAt[where].size() != 1) continue;
      if (!promoted.count(where)) {
        VectorRegister reg{names_.claim("vacc"), tailCopy()};
        std::string start = loadAt(where, reg.masked);
        for (auto* st : starts)
          if (vectorAddress(st->tensor, st->indices) == where) {
            start = asVector(st->value, isSingle(st->tensor));
            used->insert({st->id, copy_});
          }
        if (split) {
          // The shared factor reads only what the loop leaves alone, at the
          // iterators around it: the same after the loop as in it.
          reg.base = start;
          reg.shared = asVector(split->shared, isSingle(r->tensor));
          start = asVector(floatConst(0.0, r->value->dtype), isSingle(r->tensor));
        }
        line(indent, std::string(vectorType_) + " " + reg.name + " = " + start + ";");
        promoted[where] = reg;
      }
      vectorRegs_[{r->id, copy_}] = promoted[where].name;
    }
  }
  copy_ = 0;
  return promoted;
}

}  // namespace teml::codegen
