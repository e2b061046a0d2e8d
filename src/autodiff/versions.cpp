#include "autodiff/versions.hpp"

#include "diag/diagnostics.hpp"
#include "ir/accesses.hpp"
#include "ir/mutator.hpp"
#include "ir/printer.hpp"
#include "ir/scoped_visitor.hpp"

namespace teml::autodiff {

using namespace ir;

namespace {

// The tensors some comparison reads: an `if` or select condition, an operand
// of min, max, abs, a comparison, // or %, a max= or min= reduction (whose
// backward pass compares its target with the values it took). Undoing a
// float update in place gives its old value back only to rounding, which
// can turn such a comparison (a tie becomes none: seed 5781).
class ComparedTensors : public Visitor {
 public:
  std::set<std::string> names;
  using Visitor::visit;

 protected:
  void visitLoad(const Load& l) override {
    if (inComparison_) names.insert(l.tensor);
    Visitor::visitLoad(l);
  }
  void visitBinary(const Binary& b) override {
    bool kink = b.op == BinOp::Min || b.op == BinOp::Max || b.op == BinOp::FloorDiv || b.op == BinOp::Mod ||
                isComparison(b.op);
    within(kink, [&] { Visitor::visitBinary(b); });
  }
  void visitUnary(const Unary& u) override {
    within(u.op == UnaryOp::Abs || u.op == UnaryOp::Floor || u.op == UnaryOp::Ceil, [&] { Visitor::visitUnary(u); });
  }
  void visitSelect(const Select& s) override {
    within(true, [&] { visit(s.cond); });
    visit(s.a);
    visit(s.b);
  }
  void visitIf(const If& i) override {
    within(true, [&] { visit(i.cond); });
    visit(i.then);
    if (i.otherwise) visit(i.otherwise);
  }
  void visitReduce(const Reduce& r) override {
    bool extremum = r.op == ReduceOp::Max || r.op == ReduceOp::Min;
    if (extremum) names.insert(r.tensor);
    within(extremum, [&] { Visitor::visitReduce(r); });
  }

 private:
  template <class F>
  void within(bool comparison, F&& f) {
    bool was = inComparison_;
    inComparison_ = was || comparison;
    f();
    inComparison_ = was;
  }
  bool inComparison_ = false;
};

// The loops around each overwriting statement of a nest.
class Locate : public ScopedVisitor {
 public:
  Locate(const Program& p, const std::set<std::string>& writers, const std::set<std::string>& undoable,
         const std::set<std::string>& written, const std::set<std::string>& compared, std::set<std::string>& names,
         std::map<std::string, SavedWrite>& out)
      : ScopedVisitor(p.tensors), writers_(writers), undoable_(undoable), written_(written), compared_(compared),
        names_(names), out_(out) {}
  using Visitor::visit;
  void visit(const ExprP&) override {}

 protected:
  void visitStore(const Store& st) override { save(st, st.tensor, st.indices, st.loc, nullptr); }
  void visitReduce(const Reduce& r) override { save(r, r.tensor, r.indices, r.loc, &r); }

 private:
  void save(const Stmt& w, const std::string& tensor, const std::vector<ExprP>& indices, SourceLoc loc,
            const Reduce* update) {
    if (!writers_.count(w.id)) return;
    const TensorDecl* decl = this->tensor(tensor);
    SavedWrite s{tensor, decl->dtype, "", {}, {}, "", {}, loc, "", nullptr, ""};
    double versions = 1;
    for (auto* f : loops()) {
      s.around.push_back(f->var);
      TapeLoop l;
      if (tapeLoop(*f, &l)) s.loops.push_back(l), versions *= static_cast<double>(l.trips);
      else if (s.dataLoop.empty()) s.dataLoop = f->var;
    }
    if (!s.dataLoop.empty()) versions = static_cast<double>(decl->elementCount());
    std::string what = (update ? std::string("the ") + reduceOpName(update->op) : std::string("the store")) +
                       (loc.line > 0 ? " at line " + std::to_string(loc.line) : "");
    double bytes = versions * ir::bytes(s.dtype);
    std::string size = std::to_string(static_cast<int64_t>(versions)) + " version" + (versions == 1 ? "" : "s") + ", " +
                       std::to_string(static_cast<int64_t>(bytes / 1024)) + " KiB";
    bool exact = !isFloat(s.dtype) || !compared_.count(tensor);
    if (ExprP inverse = update && exact && undoable_.count(w.id) ? inverseOf(*update) : nullptr) {
      int64_t operations = 1 + operationsIn(update->value);
      double traffic = tapeTraffic(bytes, 1, s.dtype);
      // A loop whose trip count data decide would need versions by element.
      if (!s.dataLoop.empty() || operations <= traffic) {
        s.inverse = inverse;
        s.why = what + " undone in place (" + toString(inverse) + ": " + std::to_string(operations) + " operation" +
                (operations == 1 ? "" : "s") + "; a tape of " + size + " costs " + std::to_string(static_cast<int64_t>(traffic)) +
                " per version)";
        out_[w.id] = s;
        return;
      }
    }
    if (!s.dataLoop.empty()) byElement(s, *decl, indices);
    s.tape = fresh(tensor + ".old");
    s.why = "the values " + what + " overwrites kept in " + s.tape + " (" + size +
            (s.once.empty() ? ")" : ", by element: inside the loop '" + s.dataLoop + "', whose trip count data decide)");
    out_[w.id] = s;
  }

  // X[I] - e for X[I] += e where e reads nothing the program writes (the
  // backward pass computes it again); X[I] / c for X[I] *= c, c a nonzero
  // constant. Null for anything else.
  ExprP inverseOf(const Reduce& r) const {
    ExprP now = load(r.tensor, r.indices, r.value->dtype);
    if (r.op == ReduceOp::Add) {
      for (auto& a : readsOf(r.value))
        if (written_.count(a.tensor)) return nullptr;
      return sub(now, r.value);
    }
    ExprP c = r.value;
    while (c->kind == ExprKind::Cast) c = c->as<Cast>().a;
    double v = c->kind == ExprKind::FloatConst ? c->as<FloatConst>().value
               : c->kind == ExprKind::IntConst ? static_cast<double>(c->as<IntConst>().value)
                                               : 0;
    if (r.op == ReduceOp::Mul && v != 0) return binary(BinOp::Div, now, r.value);
    return nullptr;
  }

  // Versions by element: every loop around W must move the element it
  // writes, itself or through the bounds of a loop inside whose trip count
  // data decide (CSR rows: `for k in range(ptr[i], ptr[i + 1])` moves with
  // i). Else its instances write one element again: refused now rather than
  // failing the run-time check.
  void byElement(SavedWrite& s, const TensorDecl& decl, const std::vector<ExprP>& indices) {
    const std::vector<const For*>& around = loops();
    auto moves = [&](const std::string& v) {
      for (auto& i : indices)
        if (usesVar(i, v)) return true;
      return false;
    };
    for (size_t k = 0; k < around.size(); ++k) {
      const For& f = *around[k];
      TapeLoop l;
      bool single = tapeLoop(f, &l) && l.trips <= 1;
      bool moved = single || moves(f.var);
      for (size_t inner = k + 1; inner < around.size() && !moved; ++inner) {
        const For& g = *around[inner];
        moved = !tapeLoop(g, &l) && moves(g.var) && (usesVar(g.begin, f.var) || usesVar(g.end, f.var));
      }
      if (!moved)
        throw UserError(s.loc, "gradient: this statement overwrites '" + s.tensor +
                                   "' where the backward pass needs the earlier values; inside the loop '" + s.dataLoop +
                                   "', whose trip count data decide, they are kept by the element written, but the "
                                   "iterations of the loop '" + f.var + "' write the same elements, so its versions "
                                   "cannot be told apart");
    }
    s.loops.clear();
    s.shape = decl.shape;
    s.once = fresh(s.tensor + ".once");
  }

  std::string fresh(const std::string& stem) {
    for (int k = 1;; ++k)
      if (names_.insert(stem + std::to_string(k)).second) return stem + std::to_string(k);
  }

  const std::set<std::string>& writers_;
  const std::set<std::string>& undoable_;
  const std::set<std::string>& written_;
  const std::set<std::string>& compared_;
  std::set<std::string>& names_;
  std::map<std::string, SavedWrite>& out_;
};

// tape[version] = X[I] in front of each saved statement.
class Save : public Mutator {
 public:
  explicit Save(const std::map<std::string, SavedWrite>& saves) : saves_(saves) {}

 protected:
  StmtP mutateStore(const StmtP& s) override { return withSave(s, s->as<Store>().indices); }
  StmtP mutateReduce(const StmtP& s) override { return withSave(s, s->as<Reduce>().indices); }

 private:
  StmtP withSave(const StmtP& w, const std::vector<ExprP>& indices) {
    auto it = saves_.find(w->id);
    if (it == saves_.end() || it->second.inverse) return w;
    const SavedWrite& save = it->second;
    StmtP saving = makeStore(save.tape, versionOf(save, indices), load(save.tensor, indices, save.dtype), {}, tag(save));
    if (!save.once.empty()) saving = checkedOnce(save, indices, saving);
    return makeSeq({saving, w});
  }
  // assert not once[I]; once[I] = true; then the saving.
  static StmtP checkedOnce(const SavedWrite& save, const std::vector<ExprP>& indices, const StmtP& saving) {
    ExprP flat = intConst(0);
    for (size_t d = 0; d < indices.size(); ++d) flat = add(mul(flat, intConst(save.shape[d])), indices[d]);
    std::string message = "gradient: element {} of '" + save.tensor + "' is written twice by this statement inside the loop '" +
                          save.dataLoop + "' (trip count decided by data); its earlier values are kept by element, "
                          "one version each, so the gradient cannot be computed";
    return makeAssert(unary(UnaryOp::Not, load(save.once, indices, DType::Bool)), message, flat, save.loc,
                      makeSeq({makeStore(save.once, indices, boolConst(true), {}, tag(save, ".once")), saving}));
  }
  static StmtTag tag(const SavedWrite& save, const std::string& suffix = ".save") {
    StmtTag t{save.tape + suffix, {}, {}};
    for (auto& v : save.around) {
      t.names.push_back(v);
      t.origin.push_back(var(v));
    }
    return t;
  }

  const std::map<std::string, SavedWrite>& saves_;
};

}  // namespace

SavedWrites saveWrites(const Program& forward, const std::vector<std::set<std::string>>& writers,
                       const std::vector<std::set<std::string>>& undoable, std::set<std::string>& names) {
  std::set<std::string> written;
  for (auto& nest : forward.nests)
    for (auto& t : tensorsWritten(nest)) written.insert(t);
  ComparedTensors compared;
  for (auto& nest : forward.nests) compared.visit(nest);
  SavedWrites out(forward.nests.size());
  for (size_t k = 0; k < forward.nests.size(); ++k)
    Locate(forward, writers.at(k), undoable.at(k), written, compared.names, names, out[k]).visit(forward.nests[k]);
  return out;
}

Program recordSaves(const Program& p, const SavedWrites& saves) {
  Program out = p;
  for (size_t k = 0; k < out.nests.size(); ++k) {
    if (saves[k].empty()) continue;
    std::vector<StmtP> cleared;
    for (auto& [id, s] : saves[k]) {
      if (s.inverse) continue;
      TensorDecl tape{s.tape, s.dtype, s.shape};
      for (auto& l : s.loops) tape.shape.push_back(l.trips);
      out.tensors.push_back(tape);
      out.roles[s.tape] = TensorRole::Saved;
      if (s.once.empty()) continue;
      out.tensors.push_back(TensorDecl{s.once, DType::Bool, s.shape});
      out.roles[s.once] = TensorRole::Temporary;
      cleared.push_back(overElements(s.once, s.shape, [&](const std::vector<ExprP>& element, StmtTag tag) {
        tag.id += ".clear";
        return makeStore(s.once, element, boolConst(false), {}, tag);
      }));
    }
    cleared.push_back(Save(saves[k]).mutate(out.nests[k]));
    out.nests[k] = makeSeq(std::move(cleared));
  }
  return out;
}

std::vector<ExprP> versionOf(const SavedWrite& save, const std::vector<ExprP>& indices) {
  return save.once.empty() ? versionOf(save.loops) : indices;
}

StmtP restore(const SavedWrite& save, const std::vector<ExprP>& indices) {
  if (save.inverse) return makeStore(save.tensor, indices, save.inverse, {});
  return makeStore(save.tensor, indices, load(save.tape, versionOf(save, indices), save.dtype), {});
}

}  // namespace teml::autodiff
