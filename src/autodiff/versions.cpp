#include "autodiff/versions.hpp"

#include "diag/diagnostics.hpp"
#include "ir/mutator.hpp"
#include "ir/scoped_visitor.hpp"

namespace teml::autodiff {

using namespace ir;

namespace {

// The loops around each overwriting statement of a nest.
class Locate : public ScopedVisitor {
 public:
  Locate(const Program& p, const std::set<std::string>& writers, std::set<std::string>& names,
         std::map<std::string, SavedWrite>& out)
      : ScopedVisitor(p.tensors), writers_(writers), names_(names), out_(out) {}
  using Visitor::visit;
  void visit(const ExprP&) override {}

 protected:
  void visitStore(const Store& st) override { save(st, st.tensor, st.loc); }
  void visitReduce(const Reduce& r) override { save(r, r.tensor, r.loc); }

 private:
  void save(const Stmt& w, const std::string& tensor, SourceLoc loc) {
    if (!writers_.count(w.id)) return;
    SavedWrite s{tensor, this->tensor(tensor)->dtype, "", {}};
    for (auto* f : loops()) {
      TapeLoop l;
      if (!tapeLoop(*f, &l))
        throw UserError(loc, "gradient: this statement overwrites '" + tensor +
                                 "' where the backward pass needs the earlier values, and the loop '" + f->var +
                                 "' around it has no constant trip count or a step other than 1 or -1, so its "
                                 "versions cannot be kept");
      s.loops.push_back(l);
    }
    for (int k = 1;; ++k)
      if (names_.insert(tensor + ".old" + std::to_string(k)).second) {
        s.tape = tensor + ".old" + std::to_string(k);
        break;
      }
    out_[w.id] = s;
  }

  const std::set<std::string>& writers_;
  std::set<std::string>& names_;
  std::map<std::string, SavedWrite>& out_;
};

// tape[version] = X[I] in front of each saved statement.
class Save : public Mutator {
 public:
  explicit Save(const std::map<std::string, SavedWrite>& saves) : saves_(saves) {}

 protected:
  StmtP mutateStore(const StmtP& s) override { return withSave(s, static_cast<const Store&>(*s).indices); }
  StmtP mutateReduce(const StmtP& s) override { return withSave(s, static_cast<const Reduce&>(*s).indices); }

 private:
  StmtP withSave(const StmtP& w, const std::vector<ExprP>& indices) {
    auto it = saves_.find(w->id);
    if (it == saves_.end()) return w;
    const SavedWrite& save = it->second;
    return makeSeq({makeStore(save.tape, versionOf(save.loops), load(save.tensor, indices, save.dtype), {}, tag(save)), w});
  }
  static StmtTag tag(const SavedWrite& save) {
    StmtTag t{save.tape + ".save", {}, {}};
    for (auto& l : save.loops) {
      t.names.push_back(l.var);
      t.origin.push_back(var(l.var));
    }
    return t;
  }

  const std::map<std::string, SavedWrite>& saves_;
};

}  // namespace

SavedWrites saveWrites(const Program& forward, const std::vector<std::set<std::string>>& writers,
                       std::set<std::string>& names) {
  SavedWrites out(forward.nests.size());
  for (size_t k = 0; k < forward.nests.size(); ++k) Locate(forward, writers.at(k), names, out[k]).visit(forward.nests[k]);
  return out;
}

Program recordSaves(const Program& p, const SavedWrites& saves) {
  Program out = p;
  for (size_t k = 0; k < out.nests.size(); ++k) {
    if (saves[k].empty()) continue;
    out.nests[k] = Save(saves[k]).mutate(out.nests[k]);
    for (auto& [id, s] : saves[k]) {
      TensorDecl tape{s.tape, s.dtype, {}};
      for (auto& l : s.loops) tape.shape.push_back(l.trips);
      out.tensors.push_back(tape);
      out.temporaries.insert(s.tape);
    }
  }
  return out;
}

StmtP restore(const SavedWrite& save, const std::vector<ExprP>& indices) {
  return makeStore(save.tensor, indices, load(save.tape, versionOf(save.loops), save.dtype), {});
}

}  // namespace teml::autodiff
