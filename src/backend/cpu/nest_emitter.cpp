#include "backend/cpu/nest_emitter.hpp"

#include "backend/cpu/invariant_index_loads.hpp"

#include "ir/index_patterns.hpp"
#include "codegen/c_text.hpp"
#include "diag/diagnostics.hpp"
#include "ir/accesses.hpp"
#include "ir/mutator.hpp"
#include "ir/printer.hpp"

namespace teml::codegen {

using namespace ir;

NestEmitter::NestEmitter(const Program& p, const target::Target& target, std::map<std::string, std::string> tensorNames,
                         std::string nestName, const StmtP& nest)
    : program_(p), target_(target), view_(p), tensorNames_(std::move(tensorNames)), nestName_(std::move(nestName)) {
  for (auto& [k, v] : tensorNames_) names_.claim(v);
}

std::string NestEmitter::body(const StmtP& nest) {
  emitStmt(nest, 1);
  // Non-temporal stores are weakly ordered: one fence before the results
  // are used (parallel regions fence in each thread, emitFor).
  if (streamed_) line(1, "teml_store_fence();");
  return out_->str();
}

std::string NestEmitter::iterName(const std::string& var) {
  for (auto it = iterNames_.rbegin(); it != iterNames_.rend(); ++it)
    if (it->first == var) return it->second;
  if (var == kRankVariable) return "teml_rank";  // set at entry (mpi_prelude.cpp)
  throw InternalError("code generation: iterator '" + var + "' is not bound by an enclosing loop");
}

bool NestEmitter::isSingle(const std::string& tensor) {
  auto* t = view_.find(tensor);
  return t && t->dtype == DType::F32;
}

std::string NestEmitter::access(const std::string& tensor, const std::vector<ExprP>& idx) {
  auto it = tensorNames_.find(tensor);
  if (it == tensorNames_.end()) throw InternalError("code generation: unknown tensor '" + tensor + "'");
  std::string s = it->second;
  auto reg = registers_.find(tensor);
  if (reg != registers_.end()) return reg->second.ref;
  if (idx.empty()) return s + "[0]";
  const TensorDecl* decl = view_.find(tensor);
  ExprP merged;
  if (decl && mergedPair(idx, decl->shape.back(), &merged)) {
    // Two merged dimensions as one: element X of the rows they form, which
    // the vector planner counts as unit stride.
    for (size_t d = 0; d + 2 < idx.size(); ++d) s += "[" + expr(idx[d], 0, false, false) + "]";
    return "((" + std::string(elementType(decl->dtype)) + " *)" + s + ")[" + expr(merged, 0, false, false) + "]";
  }
  for (auto& i : idx) s += "[" + expr(i, 0, false, false) + "]";
  return s;
}

std::string NestEmitter::expr(const ExprP& e, int parent, bool right, bool single) {
  CExprNames names{[this](const std::string& var) { return iterName(var); },
                   [this](const std::string& tensor, const std::vector<ExprP>& idx) { return access(tensor, idx); }};
  names.inVectorLanes = pragmaLanesDepth_ > 0;
  return cExpr(e, names, parent, right, single);
}

std::string NestEmitter::loopHeader(const For& f, const std::string& cvar) {
  std::string step = f.step == 1 ? cvar + "++" : f.step == -1 ? cvar + "--" : cvar + " += " + std::to_string(f.step);
  return "for (long " + cvar + " = " + expr(f.begin, 0, false, false) + "; " + cvar + (f.step > 0 ? " < " : " > ") +
         expr(f.end, 3, true, false) + "; " + step + ") {";
}

// f runs exactly one iteration, whatever its iterators around: its span is
// a constant no larger than its step, and its start moves with the loops
// around (a block of rows: `4 * i_o`). A loop from a constant to a constant
// that runs once at some size only keeps its form: a kernel serves every
// size with the same C (size_generic_kernels.hpp).
bool NestEmitter::runsOnce(const For& f) {
  int64_t span = 0, start = 0;
  return !constValue(f.begin, &start) &&
         constValue(f.step > 0 ? sub(f.end, f.begin) : sub(f.begin, f.end), &span) && span >= 1 &&
         span <= (f.step > 0 ? f.step : -f.step);
}

const char* NestEmitter::clauseOperator(const ReductionClause& r) const {
  // Bools: += and max= are "or", *= and min= "and" (the interpreter's 0/1 results).
  const TensorDecl* acc = view_.find(r.of);
  bool boolean = acc && acc->dtype == DType::Bool;
  // Floats' max and min: fmax and fmin, whose identity is NaN (c_emitter.cpp declares them).
  bool f32 = acc && acc->dtype == DType::F32, f64 = acc && acc->dtype == DType::F64;
  return boolean ? (r.op == ReduceOp::Add || r.op == ReduceOp::Max ? "|" : "&")
         : r.op == ReduceOp::Add ? "+"
         : r.op == ReduceOp::Mul ? "*"
         : r.op == ReduceOp::Max ? (f32 ? "teml_fmaxf" : f64 ? "teml_fmaxd" : "max")
                                 : (f32 ? "teml_fminf" : f64 ? "teml_fmind" : "min");
}

void NestEmitter::emitFor(const For& f, int indent) {
  if (f.loopKind.cpu.copy.form == CopyForm::Flat || f.loopKind.cpu.copy.form == CopyForm::FlatStreaming)
    return emitFlatCopy(f, indent);
  if (f.loopKind.cpu.copy.form == CopyForm::Gathered) return emitGatheredCopy(f, indent);
  if (emitWithIndexLoadsHoisted(f, indent)) return;
  std::string cvar = names_.claim(f.var);
  std::string clauses;
  std::vector<const ReductionClause*> onHeap;  // accumulators each thread copies itself (below)
  for (auto& r : f.loopKind.reductions) {
    if (f.loopKind.threads() && r.perThreadCopies) {
      onHeap.push_back(&r);
      continue;
    }
    clauses += std::string(" reduction(") + clauseOperator(r) + ":" + tensorNames_.at(r.accumulator) + ")";
  }
  iterNames_.push_back({f.var, cvar});
  bool explicitVector = f.loopKind.lanes() && f.loopKind.cpu.vectorPlan.form != VectorForm::Pragma;
  struct LanesScope {  // the loops GCC vectorizes around what is emitted now
    int& depth;
    bool counts;
    ~LanesScope() { depth -= counts; }
  } lanesScope{pragmaLanesDepth_, f.loopKind.lanes() && !explicitVector};
  pragmaLanesDepth_ += lanesScope.counts;
  if (explicitVector && vectorType_) throw InternalError("code generation: a vector plan inside another");
  if (f.loopKind.threads() && f.loopKind.lanes()) {
    line(indent, std::string("#pragma omp parallel for simd schedule(") + threadScheduleName(f.loopKind.schedule) +
                     ")" + clauses);
  } else if (f.loopKind.threads()) {
    bool streamedBefore = streamed_;
    streamed_ = false;
    // A heap accumulator's private copies: one per thread, named here, used
    // by the body in place of the shared accumulator.
    auto sharedNames = tensorNames_;
    std::vector<std::string> copies;
    for (auto* r : onHeap) {
      copies.push_back(names_.claim(r->accumulator + "_mine"));
      tensorNames_[r->accumulator] = copies.back();
    }
    std::string call = bodyFunction(f);
    tensorNames_ = sharedNames;
    std::string schedule = std::string("schedule(") + threadScheduleName(f.loopKind.schedule) + ")" + clauses;
    if (streamed_ || !onHeap.empty()) {
      line(indent, "#pragma omp parallel");
      line(indent, "{");
      for (size_t k = 0; k < onHeap.size(); ++k) privateCopyIn(*onHeap[k], copies[k], static_cast<int>(k), indent + 1);
      line(indent + 1, "#pragma omp for " + schedule);
      line(indent + 1, loopHeader(f, cvar));
      line(indent + 2, call + ";");
      line(indent + 1, "}");
      for (size_t k = 0; k < onHeap.size(); ++k) privateCopyOut(*onHeap[k], copies[k], static_cast<int>(k), indent + 1);
      // Each thread fences its own non-temporal stores before the region ends.
      if (streamed_) line(indent + 1, "teml_store_fence();");
      line(indent, "}");
      for (auto& c : copies) names_.release(c);
    } else {
      line(indent, "#pragma omp parallel for " + schedule);
      line(indent, loopHeader(f, cvar));
      line(indent + 1, call + ";");
      line(indent, "}");
    }
    streamed_ |= streamedBefore;
  } else if (explicitVector) {
    emitVectorLoop(f, cvar, indent);
  } else if (int64_t lanes = jointSums(f)) {  // before partial sums: jammed sums take it at any length
    emitJointSums(f, lanes, indent);
    iterNames_.pop_back();
    names_.release(cvar);
    return;
  } else if (int64_t parts = partialSums(f)) {
    emitPartialSums(f, cvar, parts, indent);
    iterNames_.pop_back();
    names_.release(cvar);
    return;
  } else if (const Assert* check = f.loopKind.lanes() ? onlyACheck(f) : nullptr) {
    emitCheckLoop(f, *check, cvar, indent);
    iterNames_.pop_back();
    names_.release(cvar);
    return;
  } else if (f.loopKind.lanes()) {
    line(indent, "#pragma omp simd" + clauses);
  }
  if (!f.loopKind.threads() && !f.loopKind.lanes() && runsOnce(f)) {
    // A block, not a loop: under -fwrapv GCC cannot tell that
    // `for (i = 4 * i_o; i < 4 * i_o + 1; i += 4)` (a block of rows jammed
    // into the loops inside) runs once, and kept what the loops inside
    // needed in registers it lacked: attention's jammed scores 1.98 ->
    // 1.66 ms in C.
    line(indent, "{");
    line(indent + 1, "const long " + cvar + " = " + expr(f.begin, 0, false, false) + ";");
    emitPrefetches(f, indent + 1);
    emitStmt(f.body, indent + 1);
    line(indent, "}");
  } else if ((!f.loopKind.threads() || f.loopKind.lanes()) && !explicitVector) {
    line(indent, loopHeader(f, cvar));
    emitPrefetches(f, indent + 1);
    emitStmt(f.body, indent + 1);
    if (f.loopKind.carriesDependence) line(indent + 1, "__asm__ __volatile__(\"\" ::: \"memory\");");
    line(indent, "}");
  }
  iterNames_.pop_back();
  names_.release(cvar);
}

// A SIMD loop left to the C compiler (`#pragma omp simd`) reads the indices
// that do not change in it into locals first (invariant_index_loads.hpp),
// each only where the loop runs at all: with none, it might read past a
// tensor that no iteration would have read.
bool NestEmitter::emitWithIndexLoadsHoisted(const For& f, int indent) {
  if (!f.loopKind.lanes() || f.loopKind.threads() || f.loopKind.cpu.vectorPlan.form != VectorForm::Pragma)
    return false;
  std::vector<HoistedIndexLoad> hoisted;
  StmtP loop =
      hoistInvariantIndexLoads(f, [&] { return "teml.index" + std::to_string(hoistedIndices_++); }, hoisted);
  if (hoisted.empty()) return false;
  int64_t trips = 0;
  bool runs = constValue(f.step > 0 ? sub(f.end, f.begin) : sub(f.begin, f.end), &trips) && trips > 0;
  std::string guard = f.step > 0 ? expr(binary(BinOp::Lt, f.begin, f.end), 0, false, false)
                                 : expr(binary(BinOp::Gt, f.begin, f.end), 0, false, false);
  line(indent, "{");
  std::vector<std::string> cnames;
  for (auto& h : hoisted) {
    cnames.push_back(names_.claim("index"));
    std::string value = "(int64_t)(" + expr(h.load, 0, false, false) + ")";
    line(indent + 1, "const int64_t " + cnames.back() + " = " + (runs ? value : guard + " ? " + value + " : 0") + ";");
  }
  for (size_t k = 0; k < hoisted.size(); ++k) iterNames_.push_back({hoisted[k].var, cnames[k]});
  emitFor(loop->as<For>(), indent + 1);
  for (size_t k = 0; k < hoisted.size(); ++k) iterNames_.pop_back();
  for (auto& c : cnames) names_.release(c);
  line(indent, "}");
  return true;
}

// The elements an iteration prefetchAhead iterations later touches through
// indices read from data, wherever the indices it reads are in their
// tensors' bounds: past the loop's end too, so that a short loop (a CSR
// row) fetches for the rows after it. A prefetch never faults; the loads of
// the indices would.
namespace {

// The indices read for a prefetch, where only the last subscript moves with
// the loop (index[b][l + 32] in a bag's loop over l): past the row's end
// they run on into the next row (index[b + 1][...]), as the loop that
// follows this one reads them, so that the first entries of a row are
// fetched too. `guards` collects each index's bounds: the whole tensor's
// for such a row, else each moving subscript's.
class RowCrossingIndices : public Mutator {
 public:
  RowCrossingIndices(const std::string& var, const Program& view, const ExprP& top, std::vector<ExprP>& guards)
      : var_(var), view_(view), top_(top), guards_(guards) {}

 protected:
  ExprP mutateLoad(const ExprP& e) override {
    if (e == top_) return Mutator::mutateLoad(e);
    auto& l = e->as<Load>();
    const TensorDecl* d = view_.find(l.tensor);
    size_t rank = l.indices.size();
    bool onlyLast = rank >= 2 && d && d->shape.size() == rank;
    for (size_t k = 0; onlyLast && k + 1 < rank; ++k) onlyLast = !usesVar(l.indices[k], var_);
    if (!onlyLast || !usesVar(l.indices.back(), var_)) {
      for (size_t k = 0; d && k < rank; ++k)
        if (usesVar(l.indices[k], var_)) guards_.push_back(inRange(l.indices[k], d->shape[k]));
      return e;
    }
    ExprP flat = intConst(0);
    for (size_t k = 0; k < rank; ++k) flat = add(mul(flat, intConst(d->shape[k])), l.indices[k]);
    guards_.push_back(inRange(flat, d->elementCount()));
    std::vector<ExprP> at = l.indices;
    ExprP row = intConst(d->shape.back());
    at[rank - 2] = add(at[rank - 2], floorDiv(at.back(), row));
    at.back() = binary(BinOp::Mod, at.back(), row);
    return load(l.tensor, at, l.dtype);
  }

 private:
  static ExprP inRange(const ExprP& i, int64_t n) {
    return binary(BinOp::And, binary(BinOp::Ge, i, intConst(0)), binary(BinOp::Lt, i, intConst(n)));
  }
  std::string var_;
  const Program& view_;
  ExprP top_;
  std::vector<ExprP>& guards_;
};

}  // namespace

void NestEmitter::emitPrefetches(const For& f, int indent, bool inVectorCopy) {
  if (f.loopKind.cpu.prefetches.empty()) return;
  ExprP ahead = add(var(f.var), intConst(f.step * f.loopKind.cpu.prefetchAhead));
  std::vector<ExprP> at;
  std::set<std::string> guards;
  for (auto& p : f.loopKind.cpu.prefetches) {
    at.push_back(substitute(p.at, {{f.var, ahead}}));
    if (inVectorCopy && at.back()->kind == ExprKind::Load) {
      auto& l = at.back()->as<Load>();
      at.back() = load(l.tensor, shifted(l.indices), l.dtype);
    }
    std::vector<ExprP> bounds;
    at.back() = RowCrossingIndices(f.var, view_, at.back(), bounds).mutate(at.back());
    for (auto& b : bounds) guards.insert(expr(b, 0, false, false));
  }
  std::string cond;
  for (auto& g : guards) cond += (cond.empty() ? "" : " && ") + g;
  line(indent, "if (" + (cond.empty() ? "0" : cond) + ") {");
  for (size_t k = 0; k < at.size(); ++k)
    line(indent + 1, "__builtin_prefetch(&" + expr(at[k], 0, false, false) + ", " +
                         (f.loopKind.cpu.prefetches[k].write ? "1" : "0") + ", 3);");
  line(indent, "}");
}

namespace {
std::string copyBytes(const TensorDecl& d) {
  return std::to_string((std::max<int64_t>(1, d.elementCount()) * ir::bytes(d.dtype) + 63) / 64 * 64);
}
}  // namespace

// A thread's own copy of a heap accumulator, starting at the reduction's
// identity (OpenMP's reduction clause would put it on the thread's stack).
// The first thread updates the accumulator itself: one copy, and one
// merge, fewer. Each other thread's copy is kept for the next call, in
// `slot` (teml_private_copy in the C prelude).
void NestEmitter::privateCopyIn(const ReductionClause& r, const std::string& copy, int slot, int indent) {
  const TensorDecl& d = *view_.find(r.accumulator);
  int64_t count = std::max<int64_t>(1, d.elementCount());
  std::string type = elementType(d.dtype), pointer = tensorNames_.at(r.accumulator);
  line(indent, "__typeof__(&(" + pointer + ")[0]) " + copy + " = teml_thread() == 0 ? " + pointer +
                   " : teml_private_copy(" + std::to_string(slot) + ", " + copyBytes(d) + ");");
  line(indent, "if (!" + copy + ") abort();");
  std::string z = names_.claim("z");
  line(indent, "if (" + copy + " != " + pointer + ")");
  line(indent + 1, "for (long " + z + " = 0; " + z + " < " + std::to_string(count) + "; " + z + "++) ((" + type + " *)" +
                       copy + ")[" + z + "] = " + floatLiteral(reduceIdentity(r.op), d.dtype == DType::F32) + ";");
  names_.release(z);
}

// The copy combined into the shared accumulator, one thread at a time.
void NestEmitter::privateCopyOut(const ReductionClause& r, const std::string& copy, int slot, int indent) {
  const TensorDecl& d = *view_.find(r.accumulator);
  int64_t count = std::max<int64_t>(1, d.elementCount());
  std::string type = elementType(d.dtype), shared = "((" + type + " *)" + tensorNames_.at(r.accumulator) + ")",
              mine = "((" + type + " *)" + copy + ")";
  std::string z = names_.claim("z");
  std::string a = shared + "[" + z + "]", b = mine + "[" + z + "]";
  std::string combined = r.op == ReduceOp::Add   ? a + " + " + b
                         : r.op == ReduceOp::Mul ? a + " * " + b
                         : r.op == ReduceOp::Max ? "(" + a + " > " + b + " ? " + a + " : " + b + ")"
                                                 : "(" + a + " < " + b + " ? " + a + " : " + b + ")";
  // After the loop's barrier: the first thread's updates are in.
  line(indent, "if (" + copy + " != " + tensorNames_.at(r.accumulator) + ") {");
  line(indent + 1, "#pragma omp critical");
  line(indent + 1, "for (long " + z + " = 0; " + z + " < " + std::to_string(count) + "; " + z + "++) " + a + " = " +
                       combined + ";");
  line(indent + 1, "teml_private_copy_done(" + std::to_string(slot) + ", " + copy + ", " + copyBytes(d) + ");");
  line(indent, "}");
  names_.release(z);
}

std::string NestEmitter::bodyFunction(const For& f) {
  std::string name = nestName_ + "_par" + std::to_string(++helperCount_);
  std::vector<std::string> params, args;
  for (auto& [var, cname] : iterNames_) {
    params.push_back("long " + cname);
    args.push_back(cname);
  }
  auto used = tensorsAccessed(f.body);
  for (auto& t : program_.tensors)
    if (used.count(t.name) && !localShapes_.count(t.name) && !registers_.count(t.name)) {
      params.push_back(paramDecl(t, tensorNames_.at(t.name)));
      args.push_back(tensorNames_.at(t.name));
    }
  // Local tensors declared around the loop are shared by its iterations.
  for (auto& [name, shape] : localShapes_)
    if (used.count(name)) {
      params.push_back(paramDecl(shape, tensorNames_.at(name)));
      args.push_back(tensorNames_.at(name));
    }
  // Scalars in registers are passed by address (each thread's own copy of
  // an accumulator of the loop's reduction clause).
  auto savedRegisters = registers_;
  for (auto& [name, reg] : registers_)
    if (used.count(name)) {
      params.push_back(std::string(cType(reg.dtype)) + " *restrict " + reg.cname);
      args.push_back("&" + reg.ref);
      reg.ref = "(*" + reg.cname + ")";
    }
  auto saved = std::move(out_);
  out_ = std::make_unique<std::ostringstream>();
  std::string sig, call;
  for (size_t i = 0; i < params.size(); ++i) {
    sig += (i ? ", " : "") + params[i];
    call += (i ? ", " : "") + args[i];
  }
  line(0, "static void " + name + "(" + sig + ") {");
  emitStmt(f.body, 1);
  line(0, "}");
  helpers_ += out_->str() + "\n";
  out_ = std::move(saved);
  registers_ = savedRegisters;
  return name + "(" + call + ")";
}

void NestEmitter::emitLibCall(const LibCall& c, int indent) {
  if (c.routine != "gemm" || c.tensors.size() != 3 || c.args.size() != 8)
    throw InternalError("code generation: unknown library call " + c.routine);
  bool single = isSingle(c.tensors[0]);
  auto ptr = [&](const std::string& t, bool out) {
    return std::string("(") + (out ? "" : "const ") + (single ? "float" : "double") + " *)" + tensorNames_.at(t);
  };
  auto a = [&](int k) { return std::to_string(c.args[k]); };
  line(indent, std::string(single ? "cblas_sgemm" : "cblas_dgemm") + "(101, " + (c.args[0] ? "112" : "111") + ", " +
                   (c.args[1] ? "112" : "111") + ", " + a(2) + ", " + a(3) + ", " + a(4) + ", 1, " +
                   ptr(c.tensors[1], false) + ", " + a(5) + ", " + ptr(c.tensors[2], false) + ", " + a(6) + ", 1, " +
                   ptr(c.tensors[0], true) + ", " + a(7) + ");");
}

void NestEmitter::emitReduce(const Reduce& r, int indent) {
  bool single = isSingle(r.tensor);
  std::string value = expr(r.value, 0, false, single);
  std::string target = access(r.tensor, r.indices);
  const TensorDecl* t = view_.find(r.tensor);
  bool ints = t && isIntegral(t->dtype);
  bool i32 = t && t->dtype == DType::I32;
  const char* max = i32 ? "teml_max_i32(" : ints ? "teml_max(" : single ? "teml_fmaxf(" : "teml_fmaxd(";
  const char* min = i32 ? "teml_min_i32(" : ints ? "teml_min(" : single ? "teml_fminf(" : "teml_fmind(";
  std::string update;
  if (t && t->dtype == DType::Bool) {
    // 0 or 1 in a byte, as the interpreter's bools: or, and.
    bool any = r.op == ReduceOp::Add || r.op == ReduceOp::Max;
    update = target + (any ? " |= " : " &= ") + "(" + value + ") != 0;";
  } else switch (r.op) {
    case ReduceOp::Add: update = target + " += " + value + ";"; break;
    case ReduceOp::Mul: update = target + " *= " + value + ";"; break;
    case ReduceOp::Max: update = target + " = " + max + target + ", " + value + ");"; break;
    case ReduceOp::Min: update = target + " = " + min + target + ", " + value + ");"; break;
  }
  if (r.atomic) {
    if (r.op == ReduceOp::Add || r.op == ReduceOp::Mul) {
      line(indent, "#pragma omp atomic");
      line(indent, update);
    } else {
      line(indent, "#pragma omp critical(teml_minmax)");
      line(indent, "{ " + update + " }");
    }
    return;
  }
  line(indent, update);
}

class NestEmitter::ScalarStmt : public StmtFunctor<void(int)> {
 public:
  explicit ScalarStmt(NestEmitter& e) : e_(e) {}
  void emit(const StmtP& s, int indent) { dispatch(s, indent); }

 private:
  void visitFor(const For& f, int indent) override { e_.emitFor(f, indent); }
  void visitStore(const Store& st, int indent) override { e_.emitStore(st, indent); }
  void visitReduce(const Reduce& r, int indent) override { e_.emitReduce(r, indent); }
  void visitSeq(const Seq& q, int indent) override {
    for (auto& t : q.stmts) emit(t, indent);
  }
  void visitLibCall(const LibCall& c, int indent) override { e_.emitLibCall(c, indent); }
  void visitIf(const If& i, int indent) override { e_.emitIf(i, indent); }
  void visitVarDef(const VarDef& v, int indent) override { e_.emitVarDef(v, indent); }
  void visitAssert(const Assert& a, int indent) override { e_.emitAssert(a, indent); }
  void visitBarrier(const Barrier&, int) override { throw InternalError("C emitter: a GPU barrier on the CPU target"); }
  void visitExchange(const Exchange& x, int indent) override { e_.emitExchange(x, indent); }

  NestEmitter& e_;
};

void NestEmitter::emitStmt(const StmtP& s, int indent) { ScalarStmt(*this).emit(s, indent); }

void NestEmitter::emitStore(const Store& st, int indent) {
  line(indent, access(st.tensor, st.indices) + " = " + expr(st.value, 0, false, isSingle(st.tensor)) + ";");
}

void NestEmitter::emitVarDef(const VarDef& v, int indent) {
  const TensorDecl& d = v.decl;
  if (v.loopLocal && !v.loopLocal->boxed)
    throw InternalError("code generation: the lowering stage gave local tensor '" + d.name + "' no box");
  std::string cname = names_.claim(d.name), type = d.mem == MemKind::Register ? cType(d.dtype) : elementType(d.dtype);
  int64_t bytes = std::max<int64_t>(1, d.elementCount()) * ir::bytes(d.dtype);
  TensorDecl shape{cname, d.dtype, d.shape};
  double init = v.loopLocal ? v.loopLocal->init : 0;
  bool fill = !(v.loopLocal && v.loopLocal->writtenBeforeRead) && !program_.temporariesWrittenFirst.count(d.name);
  line(indent, "{");
  if (d.mem == MemKind::Register) {
    if (!d.shape.empty()) throw InternalError("code generation: tensor '" + d.name + "' in registers is not a scalar");
    line(indent + 1, type + " " + cname + " = " + (init == 0 ? "0" : floatLiteral(init, d.dtype == DType::F32)) + ";");
    registers_[d.name] = Register{cname, d.dtype, cname};
  } else if (d.mem == MemKind::Heap) {
    std::string decl = d.shape.size() <= 1 ? type + " *" + cname : type + " (*" + cname + ")" + shapeSuffix(shape);
    line(indent + 1, decl + " = aligned_alloc(64, " + std::to_string((bytes + 63) / 64 * 64) + ");");
    line(indent + 1, "if (!" + cname + ") abort();");
  } else if (d.mem == MemKind::Stack) {
    std::string dims;
    for (auto e : d.shape) dims += "[" + std::to_string(e) + "]";
    line(indent + 1, type + " " + cname + (dims.empty() ? "[1]" : dims) + " __attribute__((aligned(64)));");
  } else {
    throw InternalError("code generation: the lowering stage gave tensor '" + d.name + "' no memory kind");
  }
  // A loop-local tensor may hide a program tensor, or an outer local, of its name.
  auto savedNames = tensorNames_;
  auto savedShapes = localShapes_;
  auto savedPrefetching = prefetching_;
  if (d.mem != MemKind::Register) {
    if (fill && init == 0) {
      line(indent + 1, "memset(" + cname + ", 0, " + std::to_string(bytes) + ");");
    } else if (fill) {
      std::string z = names_.claim("z");
      line(indent + 1, "for (long " + z + " = 0; " + z + " < " + std::to_string(d.elementCount()) + "; " + z + "++) ((" +
                           type + " *)" + cname + ")[" + z + "] = " + floatLiteral(init, d.dtype == DType::F32) + ";");
      names_.release(z);
    }
    localShapes_[d.name] = shape;
  }
  tensorNames_[d.name] = cname;
  if (v.loopLocal && v.loopLocal->prefetchAhead > 0) prefetching_[d.name] = &*v.loopLocal;
  view_.tensors.push_back(d);
  emitStmt(v.body, indent + 1);
  view_.tensors.pop_back();
  tensorNames_ = savedNames;
  localShapes_ = savedShapes;
  prefetching_ = savedPrefetching;
  registers_.erase(d.name);
  if (d.mem == MemKind::Heap) line(indent + 1, "free(" + cname + ");");
  line(indent, "}");
  names_.release(cname);
}

// The check of a loop whose body is one check and nothing else (CSR rows in
// order, before the rows run).
const Assert* NestEmitter::onlyACheck(const For& f) {
  std::vector<StmtP> body = items(f.body);
  if (body.size() != 1 || body[0]->kind != StmtKind::Assert) return nullptr;
  auto& a = body[0]->as<Assert>();
  return items(a.body).empty() ? &a : nullptr;
}

// A call in a loop keeps it out of lanes, so the check runs first as an OR
// in lanes, and only when some iteration fails, again one by one to report
// the first (SpMV's 20,000 rows: ~30 us a call in order, a few in lanes).
void NestEmitter::emitCheckLoop(const For& f, const Assert& check, const std::string& cvar, int indent) {
  std::string failed = names_.claim("teml_some_failed");
  line(indent, "{");
  line(indent + 1, "int " + failed + " = 0;");
  line(indent + 1, "#pragma omp simd reduction(|:" + failed + ")");
  line(indent + 1, loopHeader(f, cvar));
  line(indent + 2, failed + " |= !(" + expr(check.cond, 0, false, false) + ");");
  line(indent + 1, "}");
  line(indent + 1, "if (" + failed + ") {");
  line(indent + 2, loopHeader(f, cvar));
  emitAssert(check, indent + 3);
  line(indent + 2, "}");
  line(indent + 1, "}");
  line(indent, "}");
  names_.release(failed);
}

void NestEmitter::emitAssert(const Assert& a, int indent) {
  line(indent, "if (" + expr(a.cond, 0, false, false) + ") {");
  emitStmt(a.body, indent + 1);
  line(indent, "} else {");
  line(indent + 1, "teml_fail(" + std::to_string(a.loc.line) + ", " + std::to_string(a.loc.col) + ", " +
                       cString(a.message) + ", " + (a.shown ? "(long)(" + expr(a.shown, 0, false, false) + ")" : "0") +
                       ");");
  line(indent, "}");
}

void NestEmitter::emitIf(const If& i, int indent) {
  line(indent, "if (" + expr(i.cond, 0, false, false) + ") {");
  emitStmt(i.then, indent + 1);
  if (i.otherwise) {
    line(indent, "} else {");
    emitStmt(i.otherwise, indent + 1);
  }
  line(indent, "}");
}

}  // namespace teml::codegen
