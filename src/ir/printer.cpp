#include "ir/printer.hpp"

#include <sstream>

namespace teml::ir {


static std::string numberText(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  std::string s = os.str();
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

static std::string print(const ExprP& e, int parentPrec, bool rightSide) {
  switch (e->kind) {
    case ExprKind::IntConst: return std::to_string(static_cast<const IntConst&>(*e).value);
    case ExprKind::FloatConst: return numberText(static_cast<const FloatConst&>(*e).value);
    case ExprKind::Var: return static_cast<const Var&>(*e).name;
    case ExprKind::Load: {
      auto& l = static_cast<const Load&>(*e);
      std::string s = l.tensor;
      for (auto& i : l.indices) s += "[" + print(i, 0, false) + "]";
      return s;
    }
    case ExprKind::Binary: {
      auto& b = static_cast<const Binary&>(*e);
      int p = precedence(b.op);
      if (p == 6) return std::string(binOpName(b.op)) + "(" + print(b.a, 0, false) + ", " +
                         print(b.b, 0, false) + ")";
      std::string s = print(b.a, p, false) + " " + binOpName(b.op) + " " + print(b.b, p, true);
      bool paren = p < parentPrec || (p == parentPrec && rightSide);
      return paren ? "(" + s + ")" : s;
    }
    case ExprKind::Unary: {
      auto& u = static_cast<const Unary&>(*e);
      if (u.op == UnaryOp::Neg) return "-" + print(u.a, 7, false);
      if (u.op == UnaryOp::Not) return "!" + print(u.a, 7, false);
      return std::string(unaryOpName(u.op)) + "(" + print(u.a, 0, false) + ")";
    }
    case ExprKind::Cast: return std::string(dtypeName(e->dtype)) + "(" + print(static_cast<const Cast&>(*e).a, 0, false) + ")";
    case ExprKind::Select: {
      auto& s = static_cast<const Select&>(*e);
      return "select(" + print(s.cond, 0, false) + ", " + print(s.a, 0, false) + ", " + print(s.b, 0, false) + ")";
    }
  }
  return "?";
}

std::string toString(const ExprP& e) { return print(e, 0, false); }

static std::string target(const std::string& t, const std::vector<ExprP>& idx) {
  std::string s = t;
  for (auto& i : idx) s += "[" + toString(i) + "]";
  return s;
}

// "  # line 3", "  # line 3, stripmine of L1.2"
static std::string provenanceText(const Provenance& p) {
  std::vector<std::string> parts;
  if (p.loc.known()) parts.push_back("line " + std::to_string(p.loc.line));
  if (!p.primitive.empty()) parts.push_back(p.primitive + (p.from.empty() ? "" : " of " + p.from));
  std::string s;
  for (auto& x : parts) s += (s.empty() ? "  # " : ", ") + x;
  return s;
}

// "  @S3", "  @S3  (unroll of S2)": a statement's id, and the primitive
// that made it where one did (its source line is printed apart).
static std::string idText(const Stmt& s) {
  if (s.id.empty()) return "";
  std::string text = "  @" + s.id;
  if (!s.made.primitive.empty()) text += "  (" + s.made.primitive + (s.made.from.empty() ? "" : " of " + s.made.from) + ")";
  return text;
}

static void printStmt(std::ostream& os, const StmtP& s, bool withIds, int indent) {
  std::string pad(indent * 2, ' ');
  switch (s->kind) {
    case StmtKind::For: {
      auto& f = static_cast<const For&>(*s);
      os << pad << "for " << f.var << " in [" << toString(f.begin) << ", " << toString(f.end) << ")";
      if (f.step != 1) os << " step " << f.step;
      if (f.loopKind.distributed) os << " distributed";
      if (f.loopKind.threads()) os << " parallel";
      if (f.loopKind.threads() && f.loopKind.schedule != ThreadSchedule::Static)
        os << "(" << threadScheduleName(f.loopKind.schedule) << ")";
      if (f.loopKind.lanes()) os << " vector";
      if (f.loopKind.gpu()) os << " " << parallelScopeName(f.loopKind.scope);
      if (auto& k = f.loopKind.kernel; !k.name.empty())
        os << " kernel(" << k.name << ", " << k.blockDim[0] << "x" << k.blockDim[1] << "x" << k.blockDim[2]
           << " threads, " << k.sharedBytes << " B shared" << (k.dynamicShared ? " dynamic" : "") << ")";
      if (auto& k = f.loopKind.kernel; !k.symbol.empty()) {
        os << " launch " << k.symbol << "(grid " << toString(k.grid[0]) << " x " << toString(k.grid[1]) << " x "
           << toString(k.grid[2]);
        for (auto& t : k.tensorArgs) os << ", " << t;
        for (auto& v : k.scalarArgs) os << ", " << v;
        os << ")";
      }
      for (auto& r : f.loopKind.reductions)
        os << " reduction(" << reduceOpName(r.op) << " " << r.accumulator << " of " << r.of
           << (r.perThreadCopies ? ", copies per thread" : "") << ")";
      if (f.loopKind.carriesDependence) os << " carries-dependence";
      for (size_t k = 0; k < f.loopKind.cpu.registerSums.size(); ++k)
        os << (k ? ", " : " register-sums(") << f.loopKind.cpu.registerSums[k] << (k + 1 == f.loopKind.cpu.registerSums.size() ? ")" : "");
      if (f.loopKind.factorSums) os << " factor-sums";
      for (size_t k = 0; k < f.loopKind.cpu.prefetches.size(); ++k)
        os << (k ? ", " : " prefetch(+" + std::to_string(f.loopKind.cpu.prefetchAhead) + ": ")
           << toString(f.loopKind.cpu.prefetches[k].at) << (f.loopKind.cpu.prefetches[k].write ? " for writing" : "")
           << (k + 1 == f.loopKind.cpu.prefetches.size() ? ")" : "");
      for (size_t k = 0; k < f.loopKind.cpu.factoredSums.size(); ++k)
        os << (k ? ", " : " factored(") << f.loopKind.cpu.factoredSums[k].id << (k + 1 == f.loopKind.cpu.factoredSums.size() ? ")" : "");
      if (auto& c = f.loopKind.cpu.copy; c.form != CopyForm::Loops) {
        auto at = [](const std::string& t, const std::vector<ExprP>& idx) {
          std::string s = t;
          for (auto& i : idx) s += "[" + toString(i) + "]";
          return s;
        };
        os << " copy(" << copyFormName(c.form) << ": " << at(c.to, c.toFirst) << " <- " << at(c.from, c.fromFirst);
        if (c.elements) os << ", " << toString(c.elements) << " elements";
        for (auto& l : c.loops) os << ", " << l.var << " < " << l.span << " steps " << l.to << "/" << l.from;
        os << ")";
      }
      if (auto& v = f.loopKind.cpu.vectorPlan; v.form != VectorForm::Pragma) {
        os << " plan(" << vectorFormName(v.form) << ", " << v.width << " x " << dtypeName(v.dtype) << " over " << v.span;
        if (v.tailLanes > 0) os << ", masked tail " << v.tailLanes;
        if (v.half == HalfWidth::Always) os << ", half width";
        if (v.half == HalfWidth::WhereMisaligned) {
          os << ", half width unless aligned:";
          for (auto& t : v.alignmentTested) os << " " << t;
        }
        os << ")";
      }
      if (withIds) os << "  @" << f.id << provenanceText(f.made);
      os << "\n";
      printStmt(os, f.body, withIds, indent + 1);
      break;
    }
    case StmtKind::Store: {
      auto& st = static_cast<const Store&>(*s);
      os << pad << target(st.tensor, st.indices) << " = " << toString(st.value);
      if (withIds) os << idText(st);
      if (withIds && st.loc.known()) os << "  # line " << st.loc.line;
      os << "\n";
      break;
    }
    case StmtKind::Reduce: {
      auto& r = static_cast<const Reduce&>(*s);
      os << pad << (r.atomic ? "atomic " : "") << target(r.tensor, r.indices) << " " << reduceOpName(r.op) << " "
         << toString(r.value);
      if (withIds) os << idText(r);
      if (withIds && r.loc.known()) os << "  # line " << r.loc.line;
      os << "\n";
      break;
    }
    case StmtKind::Seq:
      for (auto& t : static_cast<const Seq&>(*s).stmts) printStmt(os, t, withIds, indent);
      break;
    case StmtKind::LibCall: {
      auto& c = static_cast<const LibCall&>(*s);
      os << pad << "call " << c.routine << "(";
      for (size_t k = 0; k < c.tensors.size(); ++k) os << (k ? ", " : "") << c.tensors[k];
      for (auto a : c.args) os << ", " << a;
      os << ")" << (withIds ? idText(c) : "") << "  # computes:\n";
      printStmt(os, c.reference, withIds, indent + 1);
      break;
    }
    case StmtKind::Barrier:
      os << pad << (s->as<Barrier>().scope == BarrierScope::Warp ? "barrier warp" : "barrier block")
         << (withIds ? idText(*s) : "") << "\n";
      break;
    case StmtKind::Exchange: {
      auto& x = s->as<Exchange>();
      auto box = [&](const BoxTransfer& b) {
        for (size_t d = 0; d < b.lo.size(); ++d) os << (d ? " x " : " ") << "[" << b.lo[d] << ", " << b.hi[d] << ")";
      };
      os << pad << "exchange " << exchangeKindName(x.kind) << " " << x.tensor;
      if (!x.namedRows.empty()) os << " (the rows " << x.namedRows << " marks)";
      if (x.kind == ExchangeKind::ReductionStart || x.kind == ExchangeKind::Reduction ||
          x.kind == ExchangeKind::OwnersReductionStart || x.kind == ExchangeKind::ReductionToOwners) {
        os << " " << reduceOpName(x.op);
        box(x.combined);
      }
      for (size_t k = 0; k < x.transfers.size(); ++k) {
        os << (k ? ";" : ":") << " rank " << x.transfers[k].from << " -> " << x.transfers[k].to;
        box(x.transfers[k]);
      }
      os << (withIds ? idText(*s) : "") << "\n";
      break;
    }
    case StmtKind::Assert: {
      auto& a = static_cast<const Assert&>(*s);
      os << pad << "assert " << toString(a.cond) << (withIds ? idText(a) : "") << "  # " << a.message;
      if (a.shown) os << " ({} = " << toString(a.shown) << ")";
      os << "\n";
      printStmt(os, a.body, withIds, indent + 1);
      break;
    }
    case StmtKind::VarDef: {
      auto& v = static_cast<const VarDef&>(*s);
      if (v.loopLocal) {  // owned by the loop it is the body of
        auto& l = *v.loopLocal;
        os << pad << "local " << v.decl.name << " : " << dtypeName(v.decl.dtype);
        std::vector<std::string> facts;
        if (l.isCopy) facts.push_back("copy");
        if (l.writtenBeforeRead) facts.push_back("written before read");
        else facts.push_back("init " + numberText(l.init));
        if (l.prefetchAhead > 0) facts.push_back("prefetch " + std::to_string(l.prefetchAhead) + " ahead");
        if (l.boxed && l.box.used) {
          std::string offset, extent;
          for (size_t d = 0; d < l.box.extent.size(); ++d) {
            offset += (d ? ", " : "") + toString(l.box.offset[d]);
            extent += (d ? ", " : "") + std::to_string(l.box.extent[d]);
          }
          facts.push_back("box [" + offset + "] size [" + extent + "]");
        }
        if (l.boxed && !l.box.used) facts.push_back("unused");
        if (v.decl.mem != MemKind::Auto) facts.push_back(memKindName(v.decl.mem));
        for (size_t k = 0; k < facts.size(); ++k) os << (k ? ", " : "  (") << facts[k];
        os << ")\n";
        printStmt(os, v.body, withIds, indent);
        break;
      }
      os << pad << "var " << v.decl.name << " : " << dtypeName(v.decl.dtype) << "[";
      for (size_t i = 0; i < v.decl.shape.size(); ++i) os << (i ? ", " : "") << v.decl.shape[i];
      os << "]";
      if (v.decl.mem != MemKind::Auto) os << " " << memKindName(v.decl.mem);
      if (withIds) os << idText(v);
      if (withIds && v.made.loc.known()) os << "  # line " << v.made.loc.line;
      os << "\n";
      printStmt(os, v.body, withIds, indent + 1);
      break;
    }
    case StmtKind::If: {
      auto& i = static_cast<const If&>(*s);
      os << pad << "if " << toString(i.cond) << ":" << (withIds ? idText(i) : "");
      if (withIds && i.made.loc.known()) os << "  # line " << i.made.loc.line;
      os << "\n";
      printStmt(os, i.then, withIds, indent + 1);
      if (i.otherwise) {
        os << pad << "else:\n";
        printStmt(os, i.otherwise, withIds, indent + 1);
      }
      break;
    }
  }
}

std::string toString(const StmtP& s, bool withIds, int indent) {
  std::ostringstream os;
  printStmt(os, s, withIds, indent);
  return os.str();
}

std::string toString(const Program& p, bool withIds) {
  std::ostringstream os;
  for (auto& t : p.tensors) {
    os << "tensor " << t.name << " : " << dtypeName(t.dtype) << "[";
    for (size_t i = 0; i < t.shape.size(); ++i) os << (i ? ", " : "") << t.shape[i];
    os << "]";
    auto init = p.initialValues.find(t.name);
    if (init != p.initialValues.end()) os << " = " << numberText(init->second);
    os << "\n";
  }
  for (size_t i = 0; i < p.nests.size(); ++i) {
    os << "# nest " << i + 1 << "\n";
    printStmt(os, p.nests[i], withIds, 0);
  }
  return os.str();
}

}  // namespace teml::ir
