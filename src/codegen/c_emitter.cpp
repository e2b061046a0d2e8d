#include "codegen/c_emitter.hpp"

#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "analysis/concurrency.hpp"
#include "analysis/local_box.hpp"
#include "codegen/c_names.hpp"
#include "codegen/target.hpp"
#include "codegen/vector_plan.hpp"
#include "diag/diagnostics.hpp"
#include "ir/mutator.hpp"
#include "ir/printer.hpp"

namespace teml::codegen {

using namespace ir;
using analysis::ReduceStrategy;

namespace {

std::string floatLiteral(double v, bool single) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  std::string s = os.str();
  if (s == "inf") return single ? "INFINITY" : "HUGE_VAL";
  if (s == "-inf") return single ? "(-INFINITY)" : "(-HUGE_VAL)";
  if (s == "nan" || s == "-nan") return "NAN";
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return single ? s + "f" : s;
}

std::string shapeSuffix(const TensorDecl& t) {
  std::string s;
  for (size_t d = 1; d < t.shape.size(); ++d) s += "[" + std::to_string(t.shape[d]) + "]";
  return s;
}

// The C declarator of a tensor parameter, e.g. "double (*restrict A)[64][64]".
std::string paramDecl(const TensorDecl& t, const std::string& cname) {
  std::string type = dtypeName(t.dtype);
  if (t.shape.size() <= 1) return type + " *restrict " + cname;
  return type + " (*restrict " + cname + ")" + shapeSuffix(t);
}

std::string castTo(const TensorDecl& t) {
  std::string type = dtypeName(t.dtype);
  if (t.shape.size() <= 1) return "(" + type + " *)";
  return "(" + type + " (*)" + shapeSuffix(t) + ")";
}


class NestEmitter {
 public:
  NestEmitter(const Program& p, std::map<std::string, std::string> tensorNames, std::string nestName, const StmtP& nest)
      : program_(p), view_(p), tensorNames_(std::move(tensorNames)), nestName_(std::move(nestName)) {
    for (auto& [k, v] : tensorNames_) names_.claim(v);
    // Tensors the nest reads or updates (not only stores to).
    forEachStmt(nest, [&](const StmtP& s) {
      auto loads = [&](const ExprP& e) {
        forEachExpr(e, [&](const ExprP& x) {
          if (x->kind == ExprKind::Load) notOnlyStored_.insert(static_cast<const Load&>(*x).tensor);
        });
      };
      if (s->kind == StmtKind::Store) {
        loads(static_cast<const Store&>(*s).value);
        for (auto& i : static_cast<const Store&>(*s).indices) loads(i);
      } else if (s->kind == StmtKind::Reduce) {
        notOnlyStored_.insert(static_cast<const Reduce&>(*s).tensor);
        loads(static_cast<const Reduce&>(*s).value);
      } else if (s->kind == StmtKind::LibCall) {
        for (auto& t : static_cast<const LibCall&>(*s).tensors) notOnlyStored_.insert(t);
      } else if (s->kind == StmtKind::If) {
        loads(static_cast<const If&>(*s).cond);
      }
    });
    // Element types of the nest's local tensors, for the vector planner,
    // which must not treat merged dimensions of a local as one where its
    // box cuts them.
    forEachStmt(nest, [&](const StmtP& s) {
      if (s->kind != StmtKind::For) return;
      auto& f = static_cast<const For&>(*s);
      for (auto& l : f.locals) {
        analysis::LocalBox box;
        std::string why;
        if (l.decl.shape.empty() || !analysis::localBox(f, l.decl.name, &box, &why) ||
            (box.used && !flatBox(box, l.decl.shape.back())))
          localNames_.insert(l.decl.name);
      }
    });
    forEachStmt(nest, [&](const StmtP& s) {
      if (s->kind == StmtKind::For)
        for (auto& l : static_cast<const For&>(*s).locals)
          if (!view_.find(l.decl.name)) view_.tensors.push_back(l.decl);
    });
  }

  std::string body(const StmtP& nest) {
    emitStmt(nest, 1);
    return out_->str();
  }
  // Functions holding the bodies of parallel loops; they precede the nest's function.
  const std::string& helpers() const { return helpers_; }

 private:
  struct Accumulator {
    std::string name;
    bool single;
    std::string ref;  // how code refers to it: the name, or (*name) inside a body function
  };

  void line(int indent, const std::string& s) { *out_ << std::string(indent * 2, ' ') << s << "\n"; }

  std::string iterName(const std::string& var) {
    for (auto it = iterNames_.rbegin(); it != iterNames_.rend(); ++it)
      if (it->first == var) return it->second;
    throw InternalError("code generation: iterator '" + var + "' is not bound by an enclosing loop");
  }

  bool isSingle(const std::string& tensor) {
    auto* t = view_.find(tensor);
    return t && t->dtype == DType::F32;
  }

  std::string access(const std::string& tensor, const std::vector<ExprP>& idx) {
    auto it = tensorNames_.find(tensor);
    if (it == tensorNames_.end()) throw InternalError("code generation: unknown tensor '" + tensor + "'");
    std::string s = it->second;
    if (idx.empty()) return s + "[0]";
    auto local = activeLocals_.find(tensor);
    const TensorDecl* decl = view_.find(tensor);
    ExprP merged;
    if (decl && mergedPair(idx, decl->shape.back(), &merged) &&
        (local == activeLocals_.end() || flatBox(local->second, decl->shape.back()))) {
      // Two merged dimensions as one: element X of the rows they form, which
      // the vector planner counts as unit stride.
      for (size_t d = 0; d + 2 < idx.size(); ++d) {
        ExprP i = local == activeLocals_.end() ? idx[d] : sub(idx[d], local->second.offset.at(d));
        s += "[" + expr(i, 0, false, false) + "]";
      }
      return "((" + std::string(dtypeName(decl->dtype)) + " *)" + s + ")[" + expr(merged, 0, false, false) + "]";
    }
    for (size_t d = 0; d < idx.size(); ++d) {
      // A local tensor stores only its box: indices count from the box's corner.
      ExprP i = local == activeLocals_.end() ? idx[d] : sub(idx[d], local->second.offset.at(d));
      s += "[" + expr(i, 0, false, false) + "]";
    }
    return s;
  }

  // A local box that keeps its last two dimensions whole (from index 0, the
  // last one `lastExtent` long) stores them as the full tensor does.
  static bool flatBox(const analysis::LocalBox& box, int64_t lastExtent) {
    int64_t o1, o2;
    size_t n = box.offset.size();
    return n >= 2 && box.extent.back() == lastExtent && constValue(box.offset[n - 1], &o1) && o1 == 0 &&
           constValue(box.offset[n - 2], &o2) && o2 == 0;
  }

  // Declares the local tensors of loop f at the start of its body; returns
  // what closeLocals needs to end their lifetime.
  struct OpenLocal {
    std::string tensor, cname;
    bool heap;
    std::optional<std::string> savedName;
  };
  std::vector<OpenLocal> openLocals(const For& f, int indent) {
    std::vector<OpenLocal> opened;
    for (auto& l : f.locals) {
      analysis::LocalBox box;
      std::string why;
      if (!analysis::localBox(f, l.decl.name, &box, &why)) throw InternalError("code generation: " + why);
      if (!box.used) continue;
      OpenLocal o{l.decl.name, names_.claim(l.decl.name), false, std::nullopt};
      TensorDecl shape{o.cname, l.decl.dtype, box.extent};
      std::string type = dtypeName(l.decl.dtype);
      int64_t bytes = box.elementCount() * (l.decl.dtype == DType::F64 ? 8 : 4);
      o.heap = bytes > kMaxStackBytes;
      if (o.heap) {
        // aligned_alloc wants a multiple of the alignment.
        int64_t rounded = (bytes + 63) / 64 * 64;
        std::string decl = shape.shape.size() <= 1 ? type + " *" + o.cname : type + " (*" + o.cname + ")" + shapeSuffix(shape);
        line(indent, decl + " = aligned_alloc(64, " + std::to_string(rounded) + ");");
        line(indent, "if (!" + o.cname + ") abort();");
      } else {
        std::string dims;
        for (auto e : box.extent) dims += "[" + std::to_string(e) + "]";
        line(indent, type + " " + o.cname + (dims.empty() ? "[1]" : dims) + " __attribute__((aligned(64)));");
      }
      if (l.init == 0) {
        line(indent, "memset(" + o.cname + ", 0, " + std::to_string(bytes) + ");");
      } else {
        std::string z = names_.claim("z");
        line(indent, "for (long " + z + " = 0; " + z + " < " + std::to_string(box.elementCount()) + "; " + z + "++) ((" +
                         type + " *)" + o.cname + ")[" + z + "] = " + floatLiteral(l.init, l.decl.dtype == DType::F32) + ";");
        names_.release(z);
      }
      auto prev = tensorNames_.find(l.decl.name);
      if (prev != tensorNames_.end()) o.savedName = prev->second;
      tensorNames_[l.decl.name] = o.cname;
      activeLocals_[l.decl.name] = box;
      localShapes_[l.decl.name] = shape;
      opened.push_back(o);
    }
    return opened;
  }

  void closeLocals(const std::vector<OpenLocal>& opened, int indent) {
    for (auto it = opened.rbegin(); it != opened.rend(); ++it) {
      if (it->heap) line(indent, "free(" + it->cname + ");");
      names_.release(it->cname);
      if (it->savedName) tensorNames_[it->tensor] = *it->savedName;
      else tensorNames_.erase(it->tensor);
      activeLocals_.erase(it->tensor);
      localShapes_.erase(it->tensor);
    }
  }

  void emitLoopBody(const For& f, int indent) {
    auto opened = openLocals(f, indent);
    emitStmt(f.body, indent);
    closeLocals(opened, indent);
  }

  // Explicit vector code handles loops without local tensors in or below them.
  static bool hasLocals(const For& f) { return !f.locals.empty() || !localTensorsIn(f.body).empty(); }

  std::string expr(const ExprP& e, int parent, bool right, bool single) {
    switch (e->kind) {
      case ExprKind::IntConst: return std::to_string(static_cast<const IntConst&>(*e).value);
      case ExprKind::FloatConst: return floatLiteral(static_cast<const FloatConst&>(*e).value, single);
      case ExprKind::Var: return iterName(static_cast<const Var&>(*e).name);
      case ExprKind::Load: {
        auto& l = static_cast<const Load&>(*e);
        return access(l.tensor, l.indices);
      }
      case ExprKind::Binary: {
        auto& b = static_cast<const Binary&>(*e);
        bool ints = b.a->isInt() && b.b->isInt();
        std::string x = expr(b.a, precedence(b.op), false, single), y = expr(b.b, precedence(b.op), true, single);
        switch (b.op) {
          case BinOp::FloorDiv: return "teml_floordiv(" + expr(b.a, 0, false, single) + ", " + expr(b.b, 0, false, single) + ")";
          case BinOp::Mod: return "teml_mod(" + expr(b.a, 0, false, single) + ", " + expr(b.b, 0, false, single) + ")";
          case BinOp::Min:
          case BinOp::Max: {
            std::string f = ints ? (b.op == BinOp::Min ? "teml_min" : "teml_max")
                                 : (b.op == BinOp::Min ? (single ? "fminf" : "fmin") : (single ? "fmaxf" : "fmax"));
            return f + "(" + expr(b.a, 0, false, single) + ", " + expr(b.b, 0, false, single) + ")";
          }
          default: {
            // Integer '/' never reaches here: index division is FloorDiv.
            std::string s = x + " " + binOpName(b.op) + " " + y;
            int p = precedence(b.op);
            return (p < parent || (p == parent && right)) ? "(" + s + ")" : s;
          }
        }
      }
    }
    return "?";
  }

  std::string loopHeader(const For& f, const std::string& cvar) {
    std::string step = f.step == 1 ? cvar + "++" : cvar + " += " + std::to_string(f.step);
    return "for (long " + cvar + " = " + expr(f.begin, 0, false, false) + "; " + cvar + " < " +
           expr(f.end, 3, true, false) + "; " + step + ") {";
  }

  void emitFor(const For& f, int indent) {
    // Accumulators belong to this loop: a sibling loop with the same Reduce
    // node (copies made by unrolling share unchanged statements) starts anew.
    auto enclosingAccumulators = accumulators_;
    std::string cvar = names_.claim(f.var);
    bool concurrent = f.loopKind.parallel || f.loopKind.vector;
    std::vector<std::pair<std::string, std::string>> hoisted;  // (where it lives, accumulator): stored back after
    std::string clauses;
    if (concurrent && !f.loopKind.independent) {
      auto rep = analysis::analyzeConcurrentLoop(f, !f.loopKind.parallel || f.loopKind.vector);
      if (!rep.ok) throw InternalError("code generation: " + rep.reason);
      std::map<std::string, std::string> byLocation;  // one accumulator per element
      for (auto& [r, strategy] : rep.reduces) {
        if (strategy == ReduceStrategy::Atomic) {
          atomic_.insert(r);
        } else if (strategy == ReduceStrategy::Accumulator) {
          // Inside an enclosing loop's accumulator, this one starts from and returns to it.
          auto outer = accumulators_.find(r);
          std::string where = outer != accumulators_.end() ? outer->second.ref : access(r->tensor, r->indices);
          auto it = byLocation.find(where);
          if (it == byLocation.end()) {
            std::string name = names_.claim("acc");
            bool single = isSingle(r->tensor);
            line(indent, std::string(single ? "float " : "double ") + name + " = " + where + ";");
            const char* op = r->op == ReduceOp::Add ? "+" : r->op == ReduceOp::Mul ? "*"
                           : r->op == ReduceOp::Max ? "max" : "min";
            clauses += std::string(" reduction(") + op + ":" + name + ")";
            it = byLocation.emplace(where, name).first;
            hoisted.push_back({where, name});
          }
          accumulators_[r] = Accumulator{it->second, isSingle(r->tensor), it->second};
        }
      }
    }
    iterNames_.push_back({f.var, cvar});
    if (f.loopKind.parallel && f.loopKind.vector) {
      line(indent, std::string("#pragma omp parallel for simd schedule(") + threadScheduleName(f.loopKind.schedule) +
                       ")" + clauses);
    } else if (f.loopKind.parallel) {
      line(indent, std::string("#pragma omp parallel for schedule(") + threadScheduleName(f.loopKind.schedule) + ")" +
                       clauses);
      line(indent, loopHeader(f, cvar));
      line(indent + 1, bodyFunction(f) + ";");
      line(indent, "}");
    } else if (f.loopKind.vector && hoisted.empty() && !vectorType_ && !hasLocals(f)) {
      VectorPlan plan = planVectorLoop(f, view_, localNames_);
      if (plan.ok) {
        emitVectorLoop(f, cvar, plan, indent);
      } else {
        line(indent, "#pragma omp simd" + clauses);
      }
    } else if (f.loopKind.vector) {
      line(indent, "#pragma omp simd" + clauses);
    }
    bool explicitVector = f.loopKind.vector && !f.loopKind.parallel && hoisted.empty() && !vectorType_ &&
                          !hasLocals(f) && planVectorLoop(f, view_, localNames_).ok;
    if ((!f.loopKind.parallel || f.loopKind.vector) && !explicitVector) {
      line(indent, loopHeader(f, cvar));
      emitLoopBody(f, indent + 1);
      if (!concurrent && !analysis::analyzeConcurrentLoop(f, false).ok) {
        // The iterations depend on each other by more than reductions. GCC 12
        // at -O3 -march=native has been seen to vectorize such a loop anyway
        // (an outer loop, after unrolling the inner one: a[i+2][j+2] =
        // a[i+1][j+1] + ...) and compute wrong results; a compiler barrier
        // per iteration keeps its vectorizer away from this loop. Loops that
        // carry only reductions go without: the barrier would keep the
        // reduced values from staying in registers (2.5x slower contractions).
        line(indent + 1, "__asm__ __volatile__(\"\" ::: \"memory\");");
      }
      line(indent, "}");
    }
    iterNames_.pop_back();
    names_.release(cvar);
    for (auto& [where, name] : hoisted) line(indent, where + " = " + name + ";");
    accumulators_ = enclosingAccumulators;
  }

  // Emits the body of parallel loop f as a function of the iterators in scope,
  // the tensors and the accumulators it uses, and returns the call. GCC
  // vectorizes such a function as well as sequential code, which it often
  // fails to do inside the function it outlines for a parallel region.
  std::string bodyFunction(const For& f) {
    std::string name = nestName_ + "_par" + std::to_string(++helperCount_);
    std::vector<std::string> params, args;
    for (auto& [var, cname] : iterNames_) {
      params.push_back("long " + cname);
      args.push_back(cname);
    }
    auto used = tensorsAccessed(f.body);
    for (auto& t : program_.tensors)
      if (used.count(t.name) && !activeLocals_.count(t.name)) {
        params.push_back(paramDecl(t, tensorNames_.at(t.name)));
        args.push_back(tensorNames_.at(t.name));
      }
    // Local tensors declared around the loop are shared by its iterations.
    for (auto& [name, shape] : localShapes_)
      if (used.count(name)) {
        params.push_back(paramDecl(shape, tensorNames_.at(name)));
        args.push_back(tensorNames_.at(name));
      }
    auto savedAcc = accumulators_;
    std::set<std::string> passed;
    forEachStmt(f.body, [&](const StmtP& s) {
      if (s->kind != StmtKind::Reduce) return;
      auto it = accumulators_.find(static_cast<const Reduce*>(s.get()));
      if (it == accumulators_.end()) return;
      if (passed.insert(it->second.name).second) {
        params.push_back(std::string(it->second.single ? "float" : "double") + " *restrict " + it->second.name);
        args.push_back("&" + it->second.ref);
      }
    });
    for (auto& [r, a] : accumulators_)
      if (passed.count(a.name)) a.ref = "(*" + a.name + ")";
    auto saved = std::move(out_);
    out_ = std::make_unique<std::ostringstream>();
    std::string sig, call;
    for (size_t i = 0; i < params.size(); ++i) {
      sig += (i ? ", " : "") + params[i];
      call += (i ? ", " : "") + args[i];
    }
    line(0, "static void " + name + "(" + sig + ") {");
    emitLoopBody(f, 1);
    line(0, "}");
    helpers_ += out_->str() + "\n";
    out_ = std::move(saved);
    accumulators_ = savedAcc;
    return name + "(" + call + ")";
  }

  // ---- explicit vectors (GCC vector extensions) for planned vector loops
  // Lane 0 of a vector is the element at the chunk's first iteration; the
  // loop steps by whole vectors and a scalar loop runs the remainder.
  void emitVectorLoop(const For& f, const std::string& cvar, const VectorPlan& plan, int indent) {
    vectorType_ = plan.dtype == DType::F64 ? "teml_vd" : "teml_vf";
    vectorVar_ = f.var;
    vectorWidth_ = plan.width;
    int64_t chunks = plan.span / plan.width, mainSpan = chunks * plan.width;
    ExprP mainEnd = add(f.begin, intConst(mainSpan));
    if (chunks <= kMaxJammedVectors) {
      // A few vectors: one copy of the body per vector, jammed into the inner
      // loops so that they share what they load.
      vectorCopies_ = static_cast<int>(chunks);
      line(indent, "{");
      line(indent + 1, "long " + cvar + " = " + expr(f.begin, 0, false, false) + ";");
      emitVectorStmt(f.body, indent + 1);
      line(indent, "}");
    } else if (const Store* st = streamedStore(f)) {
      emitStreamingLoop(f, *st, cvar, plan, indent);
      return;
    } else {
      vectorCopies_ = 1;
      line(indent, "for (long " + cvar + " = " + expr(f.begin, 0, false, false) + "; " + cvar + " < " +
                       expr(mainEnd, 3, true, false) + "; " + cvar + " += " + std::to_string(plan.width) + ") {");
      emitVectorStmt(f.body, indent + 1);
      line(indent, "}");
    }
    vectorType_ = nullptr;
    if (mainSpan != plan.span) {
      line(indent, "for (long " + cvar + " = " + expr(mainEnd, 0, false, false) + "; " + cvar + " < " +
                       expr(f.end, 3, true, false) + "; " + cvar + "++) {");
      emitStmt(f.body, indent + 1);
      line(indent, "}");
    }
  }

  // A store that can bypass the caches: the loop's body is that one store,
  // into a program tensor too large for the caches that nothing else in the
  // nest reads or updates. Writing it with non-temporal stores saves reading
  // each line from memory before overwriting it.
  const Store* streamedStore(const For& f) {
    if (f.body->kind != StmtKind::Store) return nullptr;
    auto& st = static_cast<const Store&>(*f.body);
    const TensorDecl* t = program_.find(st.tensor);
    if (!t || activeLocals_.count(st.tensor) || notOnlyStored_.count(st.tensor)) return nullptr;
    int64_t bytes = t->elementCount() * (t->dtype == DType::F64 ? 8 : 4);
    return bytes >= kStreamingBytes ? &st : nullptr;
  }

  // Scalar iterations until the store's address is vector-aligned, whole
  // vectors stored with __builtin_nontemporal_store, scalar iterations for
  // the rest, then a store fence (the stores are weakly ordered).
  void emitStreamingLoop(const For& f, const Store& st, const std::string& cvar, const VectorPlan& plan, int indent) {
    std::string w = std::to_string(plan.width), end = expr(f.end, 3, true, false);
    std::string aligned = plan.dtype == DType::F64 ? "teml_vd_aligned" : "teml_vf_aligned";
    line(indent, "{");
    line(indent + 1, "long " + cvar + " = " + expr(f.begin, 0, false, false) + ";");
    auto saved = vectorType_;
    vectorType_ = nullptr;
    line(indent + 1, "for (; " + cvar + " < " + end + " && ((unsigned long)&" + access(st.tensor, st.indices) + ") % " +
                         std::to_string(vectorBytes()) + " != 0; " + cvar + "++) {");
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
    line(indent + 1, "teml_store_fence();");
    line(indent, "}");
  }

  // Indices of the current vector copy (the vector iterator advanced by copy * width).
  std::vector<ExprP> shifted(const std::vector<ExprP>& idx) {
    if (copy_ == 0) return idx;
    std::vector<ExprP> out;
    for (auto& i : idx) out.push_back(substitute(i, {{vectorVar_, add(var(vectorVar_), intConst(copy_ * vectorWidth_))}}));
    return out;
  }

  std::string vectorAt(const std::string& tensor, const std::vector<ExprP>& idx) {
    return "*(" + std::string(vectorType_) + " *)&" + access(tensor, shifted(idx));
  }

  // A value in the vector loop: {text, is it a vector}.
  std::pair<std::string, bool> vectorValue(const ExprP& e, bool single) {
    switch (e->kind) {
      case ExprKind::Load: {
        auto& l = static_cast<const Load&>(*e);
        if (variesWith(l.indices, vectorVar_)) return {"(" + vectorAt(l.tensor, l.indices) + ")", true};
        return {access(l.tensor, shifted(l.indices)), false};
      }
      case ExprKind::Binary: {
        auto& b = static_cast<const Binary&>(*e);
        auto x = vectorValue(b.a, single), y = vectorValue(b.b, single);
        return {"(" + x.first + " " + binOpName(b.op) + " " + y.first + ")", x.second || y.second};
      }
      default: return {expr(e, 0, false, single), false};
    }
  }

  std::string asVector(const ExprP& e, bool single) {
    auto v = vectorValue(e, single);
    return v.second ? v.first : "((" + std::string(vectorType_) + "){0} + " + v.first + ")";
  }

  void emitVectorStmt(const StmtP& s, int indent) {
    switch (s->kind) {
      case StmtKind::Store: {
        auto& st = static_cast<const Store&>(*s);
        for (copy_ = 0; copy_ < vectorCopies_; ++copy_)
          line(indent, vectorAt(st.tensor, st.indices) + " = " + asVector(st.value, isSingle(st.tensor)) + ";");
        copy_ = 0;
        break;
      }
      case StmtKind::Reduce: {
        auto& r = static_cast<const Reduce&>(*s);
        for (copy_ = 0; copy_ < vectorCopies_; ++copy_) {
          auto reg = vectorRegs_.find({&r, copy_});
          std::string target = reg != vectorRegs_.end() ? reg->second : vectorAt(r.tensor, r.indices);
          line(indent, target + (r.op == ReduceOp::Add ? " += " : " *= ") + asVector(r.value, isSingle(r.tensor)) + ";");
        }
        copy_ = 0;
        break;
      }
      case StmtKind::Seq:
        for (auto& t : static_cast<const Seq&>(*s).stmts) emitVectorStmt(t, indent);
        break;
      case StmtKind::For: {
        auto& f = static_cast<const For&>(*s);
        auto promoted = promoteReductions(f, indent);
        std::string cvar = names_.claim(f.var);
        iterNames_.push_back({f.var, cvar});
        line(indent, loopHeader(f, cvar));
        emitVectorStmt(f.body, indent + 1);
        line(indent, "}");
        iterNames_.pop_back();
        names_.release(cvar);
        for (auto& [where, reg] : promoted) {
          line(indent, where + " = " + reg + ";");
          names_.release(reg);
        }
        for (auto it = vectorRegs_.begin(); it != vectorRegs_.end();) {
          bool mine = false;
          for (auto& [where, reg] : promoted) mine |= reg == it->second;
          it = mine ? vectorRegs_.erase(it) : std::next(it);
        }
        break;
      }
      case StmtKind::If:
      case StmtKind::LibCall: throw InternalError("code generation: a guard or call in an explicitly vectorized loop");
    }
  }

  // Reductions in loop f whose target does not move during f and that nothing
  // else in f touches live in vector registers for the whole loop.
  std::map<std::string, std::string> promoteReductions(const For& f, int indent) {
    std::set<std::string> moving = {f.var};
    forEachStmt(f.body, [&](const StmtP& s) {
      if (s->kind == StmtKind::For) moving.insert(static_cast<const For&>(*s).var);
    });
    std::vector<const Reduce*> reduces;
    std::map<std::string, int> otherUses;  // tensor -> accesses that are not such reductions
    forEachStmt(f.body, [&](const StmtP& s) {
      auto countLoads = [&](const ExprP& e) {
        forEachExpr(e, [&](const ExprP& x) {
          if (x->kind == ExprKind::Load) ++otherUses[static_cast<const Load&>(*x).tensor];
        });
      };
      if (s->kind == StmtKind::Store) {
        auto& st = static_cast<const Store&>(*s);
        ++otherUses[st.tensor];
        countLoads(st.value);
      } else if (s->kind == StmtKind::Reduce) {
        auto& r = static_cast<const Reduce&>(*s);
        countLoads(r.value);
        bool fixed = true;
        for (auto& i : r.indices)
          for (auto& v : moving) fixed = fixed && !usesVar(i, v);
        if (fixed && !vectorRegs_.count({&r, 0})) reduces.push_back(&r);
        else ++otherUses[r.tensor];
      }
    });
    std::map<std::string, std::string> promoted;  // location -> register
    std::map<std::string, ReduceOp> opAt;
    // One register per element: mixed operations on an element are left in memory.
    std::map<std::string, std::set<ReduceOp>> opsAt;
    for (auto* r : reduces)
      for (copy_ = 0; copy_ < vectorCopies_; ++copy_) opsAt[vectorAt(r->tensor, r->indices)].insert(r->op);
    for (auto* r : reduces) {
      if (otherUses[r->tensor] > 0) continue;
      for (copy_ = 0; copy_ < vectorCopies_; ++copy_) {
        std::string where = vectorAt(r->tensor, r->indices);
        if (opsAt[where].size() != 1) continue;
        if (!promoted.count(where)) {
          std::string reg = names_.claim("vacc");
          line(indent, std::string(vectorType_) + " " + reg + " = " + where + ";");
          promoted[where] = reg;
        }
        vectorRegs_[{r, copy_}] = promoted[where];
      }
    }
    copy_ = 0;
    return promoted;
  }

  // C (M x N) += op(A) (M x K) * op(B) (K x N), row-major, through CBLAS.
  void emitLibCall(const LibCall& c, int indent) {
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

  void emitReduce(const Reduce& r, int indent) {
    bool single = isSingle(r.tensor);
    std::string value = expr(r.value, 0, false, single);
    auto acc = accumulators_.find(&r);
    std::string target = acc != accumulators_.end() ? acc->second.ref : access(r.tensor, r.indices);
    std::string update;
    switch (r.op) {
      case ReduceOp::Add: update = target + " += " + value + ";"; break;
      case ReduceOp::Mul: update = target + " *= " + value + ";"; break;
      case ReduceOp::Max: update = target + " = " + (single ? "fmaxf(" : "fmax(") + target + ", " + value + ");"; break;
      case ReduceOp::Min: update = target + " = " + (single ? "fminf(" : "fmin(") + target + ", " + value + ");"; break;
    }
    if (atomic_.count(&r) && acc == accumulators_.end()) {
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

  void emitStmt(const StmtP& s, int indent) {
    switch (s->kind) {
      case StmtKind::For: emitFor(static_cast<const For&>(*s), indent); break;
      case StmtKind::Store: {
        auto& st = static_cast<const Store&>(*s);
        line(indent, access(st.tensor, st.indices) + " = " + expr(st.value, 0, false, isSingle(st.tensor)) + ";");
        break;
      }
      case StmtKind::Reduce: emitReduce(static_cast<const Reduce&>(*s), indent); break;
      case StmtKind::Seq:
        for (auto& t : static_cast<const Seq&>(*s).stmts) emitStmt(t, indent);
        break;
      case StmtKind::LibCall: emitLibCall(static_cast<const LibCall&>(*s), indent); break;
      case StmtKind::If: {
        auto& i = static_cast<const If&>(*s);
        line(indent, "if (" + expr(i.cond, 0, false, false) + ") {");
        emitStmt(i.then, indent + 1);
        if (i.otherwise) {
          line(indent, "} else {");
          emitStmt(i.otherwise, indent + 1);
        }
        line(indent, "}");
        break;
      }
    }
  }

  const Program& program_;
  Program view_;  // the program's tensors and the nest's local tensors
  std::set<std::string> localNames_;
  std::map<std::string, std::string> tensorNames_;
  std::map<std::string, analysis::LocalBox> activeLocals_;  // local tensors in scope
  std::map<std::string, TensorDecl> localShapes_;           // their boxes as C arrays
  static constexpr int64_t kMaxStackBytes = 128 * 1024;
  std::set<std::string> notOnlyStored_;
  // Tensors at least this large (twice a 32 MiB last-level cache) are
  // written with non-temporal stores where streamedStore allows.
  static constexpr int64_t kStreamingBytes = 64 * 1024 * 1024;
  CNames names_;
  std::vector<std::pair<std::string, std::string>> iterNames_;
  std::map<const Reduce*, Accumulator> accumulators_;
  std::set<const Reduce*> atomic_;
  std::string nestName_;
  const char* vectorType_ = nullptr;  // set while emitting an explicitly vectorized loop
  std::string vectorVar_;
  std::map<std::pair<const Reduce*, int>, std::string> vectorRegs_;  // (reduction, copy) -> register
  int vectorWidth_ = 0;
  int vectorCopies_ = 1;
  int copy_ = 0;
  static constexpr int64_t kMaxJammedVectors = 4;
  int helperCount_ = 0;
  std::string helpers_;
  std::unique_ptr<std::ostringstream> out_ = std::make_unique<std::ostringstream>();
};

// Non-temporal vector stores (teml_stream_vd/vf) through the intrinsics of
// the instruction set the C compiler targets, or plain stores where it has
// none of the right width; and the fence that orders them.
std::string streamingPrelude(int bytes) {
  struct Isa {
    int bytes;
    const char* macro;
    const char* d;
    const char* f;
    const char* dt;
    const char* ft;
  };
  static const Isa isas[] = {{64, "__AVX512F__", "_mm512_stream_pd", "_mm512_stream_ps", "__m512d", "__m512"},
                             {32, "__AVX__", "_mm256_stream_pd", "_mm256_stream_ps", "__m256d", "__m256"},
                             {16, "__SSE2__", "_mm_stream_pd", "_mm_stream_ps", "__m128d", "__m128"}};
  std::string s = "#if defined(__x86_64__) || defined(__i386__)\n#include <immintrin.h>\n"
                  "static inline void teml_store_fence(void) { __builtin_ia32_sfence(); }\n"
                  "#else\nstatic inline void teml_store_fence(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }\n#endif\n";
  for (auto& i : isas) {
    if (i.bytes != bytes) continue;
    s += std::string("#if defined(") + i.macro + ")\n" +
         "static inline void teml_stream_vd(double *p, teml_vd_aligned v) { " + i.d + "(p, (" + i.dt + ")v); }\n" +
         "static inline void teml_stream_vf(float *p, teml_vf_aligned v) { " + i.f + "(p, (" + i.ft + ")v); }\n" +
         "#else\n";
  }
  s += "static inline void teml_stream_vd(double *p, teml_vd_aligned v) { *(teml_vd_aligned *)p = v; }\n"
       "static inline void teml_stream_vf(float *p, teml_vf_aligned v) { *(teml_vf_aligned *)p = v; }\n";
  for (auto& i : isas)
    if (i.bytes == bytes) s += "#endif\n";
  return s + "\n";
}


}  // namespace

std::vector<std::string> linkFlags(const Program& program) {
  bool blas = false;
  for (auto& n : program.nests)
    forEachStmt(n, [&](const StmtP& s) { blas |= s->kind == StmtKind::LibCall; });
  if (blas) return {"-lopenblas"};
  return {};
}

std::string emitC(const Program& program) {
  std::ostringstream os;
  os << "/* Generated by teml. */\n"
        "#include <math.h>\n"
        "#include <stdlib.h>\n"
        "#include <string.h>\n"
        "#ifdef _OPENMP\n#include <omp.h>\n#endif\n\n"
        "static inline long teml_min(long a, long b) { return a < b ? a : b; }\n"
        "static inline long teml_max(long a, long b) { return a > b ? a : b; }\n"
        "static inline long teml_floordiv(long a, long b) { long q = a / b; return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q; }\n"
        "static inline long teml_mod(long a, long b) { return a - teml_floordiv(a, b) * b; }\n"
        "typedef double teml_vd __attribute__((vector_size(" << vectorBytes() << "), aligned(8), may_alias));\n"
        "typedef float teml_vf __attribute__((vector_size(" << vectorBytes() << "), aligned(4), may_alias));\n"
        "typedef double teml_vd_aligned __attribute__((vector_size(" << vectorBytes() << "), may_alias));\n"
        "typedef float teml_vf_aligned __attribute__((vector_size(" << vectorBytes() << "), may_alias));\n"
     << streamingPrelude(vectorBytes());
  bool blas = !linkFlags(program).empty();
  if (blas)
    os << "/* CBLAS (OpenBLAS): 101 row-major, 111 no transpose, 112 transpose. */\n"
          "void cblas_dgemm(int, int, int, int, int, int, double, const double *, int, const double *, int, double, double *, int);\n"
          "void cblas_sgemm(int, int, int, int, int, int, float, const float *, int, const float *, int, float, float *, int);\n"
          "void openblas_set_num_threads(int);\n\n";

  CNames global;
  std::map<std::string, std::string> cname;  // tensor -> C name
  for (auto& t : program.tensors) cname[t.name] = global.claim(t.name);

  std::vector<std::vector<const TensorDecl*>> params(program.nests.size());
  for (size_t k = 0; k < program.nests.size(); ++k) {
    auto used = tensorsAccessed(program.nests[k]);
    std::string sig;
    for (auto& t : program.tensors) {
      if (!used.count(t.name)) continue;
      params[k].push_back(&t);
      sig += std::string(sig.empty() ? "" : ", ") + paramDecl(t, cname[t.name]);
    }
    std::string name = "teml_nest_" + std::to_string(k + 1);
    NestEmitter em(program, cname, name, program.nests[k]);
    std::string body = em.body(program.nests[k]);
    os << em.helpers() << "static void " << name << "(" << (sig.empty() ? "void" : sig) << ") {\n" << body << "}\n\n";
  }

  os << "void teml_entry(void **buffers, int nthreads) {\n"
        "#ifdef _OPENMP\n  if (nthreads > 0) omp_set_num_threads(nthreads);\n#endif\n"
        "  (void)nthreads;\n";
  if (blas) os << "  if (nthreads > 0) openblas_set_num_threads(nthreads);\n";
  for (size_t k = 0; k < program.nests.size(); ++k) {
    os << "  teml_nest_" << k + 1 << "(";
    for (size_t i = 0; i < params[k].size(); ++i) {
      size_t slot = params[k][i] - program.tensors.data();
      os << (i ? ", " : "") << castTo(*params[k][i]) << "buffers[" << slot << "]";
    }
    os << ");\n";
  }
  os << "}\n";
  return os.str();
}

}  // namespace teml::codegen
