#include "ir/unique_statement_ids.hpp"

#include <set>

#include "ir/mutator.hpp"

namespace teml::ir {

namespace {

// Where a store, reduction or assertion stands in the source.
SourceLoc ownLoc(const Stmt& s) {
  switch (s.kind) {
    case StmtKind::Store: return static_cast<const Store&>(s).loc;
    case StmtKind::Reduce: return static_cast<const Reduce&>(s).loc;
    case StmtKind::Assert: return static_cast<const Assert&>(s).loc;
    default: return {};
  }
}

class Renamer : public Mutator {
 public:
  explicit Renamer(const StmtP& nest) {
    forEachStmt(nest, [&](const StmtP& s) {
      if (!s->id.empty()) all_.insert(s->id);
    });
  }

  // In program order: a statement's id is settled before those inside it.
  StmtP mutate(const StmtP& s) override {
    std::string id = s->id;
    if (id.empty()) {
      while (all_.count("S" + std::to_string(next_)) || used_.count("S" + std::to_string(next_))) ++next_;
      id = "S" + std::to_string(next_++);
    } else if (used_.count(id)) {
      for (int k = 2; all_.count(id) || used_.count(id); ++k) id = s->id + "#" + std::to_string(k);
    }
    used_.insert(id);
    StmtP m = Mutator::mutate(s);
    Provenance made = m->made;
    if (!made.loc.known()) made.loc = ownLoc(*m);
    return id == m->id && made == m->made ? m : withIdentity(m, id, made);
  }

 private:
  std::set<std::string> all_, used_;  // every id in the nest; ids given so far
  int next_ = 1;
};

}  // namespace

StmtP uniqueStatementIds(const StmtP& nest) { return Renamer(nest).mutate(nest); }

}  // namespace teml::ir
